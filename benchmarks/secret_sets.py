"""The labelled secret sets of issue 39, made from the providers' public token descriptions.

    python benchmarks/secret_sets.py [--write]

Every value is drawn at random (a fixed seed) in the shape a provider documents for its
tokens: the prefix, the alphabet, the length, and the checksum where there is one (GitHub and
npm: CRC32 of the random part in base62). None is a real credential. Each is placed in a text
the way teams write them (a sentence, a bullet wrapped to the next line, a table, a YAML block,
an environment line, a command), and benign look-alikes (hashes, UUIDs, commit ids, base64
images, long identifiers, placeholders, public keys) are placed the same ways.

Two parts, written apart: `secret_formats_dev.jsonl` (the dev templates: what the check may be
tuned on) and `secret_formats_heldout.jsonl` (other templates, other wording, other values;
committed before anything was measured on it, never tuned on). Both parts draw from every
format, so the held-out part measures new placements and new values, not new providers; the
check's catalogue (memkit/safety/secret_formats.json) was written from the same public
descriptions, by the same author, which is why the held-out part is less independent than one
written by someone else would be.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import string
import zlib
from collections.abc import Callable
from dataclasses import dataclass

from _common import ROOT

DATA = ROOT / "benchmarks" / "data"
ALNUM = string.ascii_letters + string.digits
B62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
HEX = "0123456789abcdef"
URLSAFE = ALNUM + "-_"
B64 = ALNUM + "+/"
UPPER_NUM = string.ascii_uppercase + string.digits
BASE32 = string.ascii_uppercase + "234567"
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

Rng = random.Random


def pick(rng: Rng, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def crc_b62(body: str) -> str:
    n = zlib.crc32(body.encode())
    out = ""
    while n:
        n, r = divmod(n, 62)
        out = B62[r] + out
    return out.rjust(6, "0")


def github(prefix: str) -> Callable[[Rng], str]:
    def make(rng: Rng) -> str:
        body = pick(rng, ALNUM, 30)
        return f"{prefix}{body}{crc_b62(body)}"

    return make


def fixed(prefix: str, alphabet: str, n: int, suffix: str = "") -> Callable[[Rng], str]:
    return lambda rng: f"{prefix}{pick(rng, alphabet, n)}{suffix}"


def uuid4_like(rng: Rng, variant: str) -> str:
    return (
        f"{pick(rng, HEX, 8)}-{pick(rng, HEX, 4)}-4{pick(rng, HEX, 3)}-{variant}{pick(rng, HEX, 3)}"
        f"-{pick(rng, HEX, 12)}"
    )


def jwt_body(rng: Rng, claims: dict[str, object]) -> str:
    head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    payload = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    return f"{head}.{payload}.{pick(rng, URLSAFE, 43)}"


@dataclass(frozen=True)
class Format:
    provider: str
    name: str
    make: Callable[[Rng], str]
    env: str  # the variable teams keep it in
    kind: str = "token"  # token | url | key-block | jwt


# (provider, what it is, how its public description says it is made, where teams keep it)
FORMATS: tuple[Format, ...] = (
    Format("AWS", "access key id", lambda r: "AKIA" + pick(r, BASE32, 16), "AWS_ACCESS_KEY_ID"),
    Format("GitHub", "classic personal access token", github("ghp_"), "GITHUB_TOKEN"),
    Format("GitHub", "OAuth token", github("gho_"), "GH_OAUTH_TOKEN"),
    Format("GitHub", "app installation token", github("ghs_"), "GH_APP_TOKEN"),
    Format(
        "GitHub",
        "fine-grained personal access token",
        lambda r: f"github_pat_{pick(r, ALNUM, 22)}_{pick(r, ALNUM, 59)}",
        "GH_PAT",
    ),
    Format("GitLab", "personal access token", fixed("glpat-", URLSAFE, 20), "GITLAB_TOKEN"),
    Format("GitLab", "deploy token", fixed("gldt-", URLSAFE, 20), "GITLAB_DEPLOY_TOKEN"),
    Format("GitLab", "runner token", fixed("glrt-", URLSAFE, 20), "RUNNER_TOKEN"),
    Format(
        "Slack",
        "bot token",
        lambda r: (
            f"xoxb-{pick(r, string.digits, 12)}-{pick(r, string.digits, 13)}-{pick(r, ALNUM, 24)}"
        ),
        "SLACK_BOT_TOKEN",
    ),
    Format(
        "Slack",
        "app-level token",
        lambda r: (
            f"xapp-1-A{pick(r, UPPER_NUM, 10)}-{pick(r, string.digits, 13)}-{pick(r, HEX, 64)}"
        ),
        "SLACK_APP_TOKEN",
    ),
    Format(
        "Slack",
        "incoming webhook",
        lambda r: (
            f"https://hooks.slack.com/services/T{pick(r, UPPER_NUM, 8)}/"
            f"B{pick(r, UPPER_NUM, 10)}/{pick(r, ALNUM, 24)}"
        ),
        "SLACK_WEBHOOK_URL",
        "url",
    ),
    Format("Stripe", "live secret key", fixed("sk_live_", ALNUM, 99), "STRIPE_SECRET_KEY"),
    Format("Stripe", "test secret key", fixed("sk_test_", ALNUM, 99), "STRIPE_TEST_KEY"),
    Format("Stripe", "restricted key", fixed("rk_live_", ALNUM, 99), "STRIPE_RESTRICTED_KEY"),
    Format("Stripe", "webhook signing secret", fixed("whsec_", ALNUM, 32), "STRIPE_WEBHOOK_SECRET"),
    Format(
        "OpenAI",
        "project API key",
        lambda r: f"sk-proj-{pick(r, URLSAFE, 74)}T3BlbkFJ{pick(r, URLSAFE, 74)}",
        "OPENAI_API_KEY",
    ),
    Format(
        "Anthropic",
        "API key",
        lambda r: f"sk-ant-api03-{pick(r, URLSAFE, 93)}AA",
        "ANTHROPIC_API_KEY",
    ),
    Format("Google", "API key", fixed("AIza", URLSAFE, 35), "GOOGLE_API_KEY"),
    Format("Google", "OAuth client secret", fixed("GOCSPX-", URLSAFE, 28), "GOOGLE_CLIENT_SECRET"),
    Format("Hugging Face", "user access token", fixed("hf_", string.ascii_letters, 34), "HF_TOKEN"),
    Format("npm", "access token", github("npm_"), "NPM_TOKEN"),
    Format(
        "PyPI",
        "API token",
        lambda r: "pypi-AgEIcHlwaS5vcmcCJ" + pick(r, URLSAFE, 150),
        "PYPI_TOKEN",
    ),
    Format(
        "Grafana",
        "service account token",
        lambda r: f"glsa_{pick(r, ALNUM, 32)}_{pick(r, HEX, 8)}",
        "GRAFANA_TOKEN",
    ),
    Format(
        "Grafana",
        "cloud access policy token",
        lambda r: (
            "glc_"
            + base64.b64encode(
                json.dumps(
                    {"o": pick(r, string.digits, 6), "n": "ci", "k": pick(r, ALNUM, 24)}
                ).encode()
            )
            .decode()
            .rstrip("=")
        ),
        "GRAFANA_CLOUD_TOKEN",
    ),
    Format(
        "SendGrid",
        "API key",
        lambda r: f"SG.{pick(r, URLSAFE, 22)}.{pick(r, URLSAFE, 43)}",
        "SENDGRID_API_KEY",
    ),
    Format("Shopify", "admin API access token", fixed("shpat_", HEX, 32), "SHOPIFY_TOKEN"),
    Format("Shopify", "shared secret", fixed("shpss_", HEX, 32), "SHOPIFY_SHARED_SECRET"),
    Format("Linear", "personal API key", fixed("lin_api_", ALNUM, 40), "LINEAR_API_KEY"),
    Format(
        "Sentry",
        "DSN with its key",
        lambda r: (
            f"https://{pick(r, HEX, 32)}@o{pick(r, string.digits, 6)}.ingest.sentry.io/"
            f"{pick(r, string.digits, 7)}"
        ),
        "SENTRY_DSN",
        "url",
    ),
    Format(
        "Sentry",
        "user auth token",
        fixed("sntryu_", HEX, 64),
        "SENTRY_AUTH_TOKEN",
    ),
    Format(
        "Discord",
        "bot token",
        lambda r: (
            base64.b64encode(pick(r, string.digits, 18).encode()).decode().rstrip("=")
            + f".{pick(r, URLSAFE, 6)}.{pick(r, URLSAFE, 38)}"
        ),
        "DISCORD_BOT_TOKEN",
    ),
    Format(
        "Discord",
        "webhook",
        lambda r: (
            f"https://discord.com/api/webhooks/{pick(r, string.digits, 19)}/{pick(r, URLSAFE, 68)}"
        ),
        "DISCORD_WEBHOOK",
        "url",
    ),
    Format("Twilio", "API key", fixed("SK", HEX, 32), "TWILIO_API_KEY"),
    Format("Mailgun", "API key", fixed("key-", HEX, 32), "MAILGUN_API_KEY"),
    Format(
        "Mailchimp",
        "API key",
        lambda r: f"{pick(r, HEX, 32)}-us{r.randint(1, 21)}",
        "MAILCHIMP_API_KEY",
    ),
    Format("Square", "access token", fixed("EAAA", URLSAFE, 60), "SQUARE_ACCESS_TOKEN"),
    Format("Docker Hub", "personal access token", fixed("dckr_pat_", URLSAFE, 27), "DOCKER_PAT"),
    Format("DigitalOcean", "personal access token", fixed("dop_v1_", HEX, 64), "DO_TOKEN"),
    Format("Databricks", "personal access token", fixed("dapi", HEX, 32), "DATABRICKS_TOKEN"),
    Format(
        "Atlassian",
        "API token",
        lambda r: f"ATATT3xFfGF0{pick(r, URLSAFE, 170)}={pick(r, HEX.upper(), 8)}",
        "JIRA_API_TOKEN",
    ),
    Format("Bitbucket", "app password", fixed("ATBB", ALNUM, 32), "BITBUCKET_APP_PASSWORD"),
    Format("Heroku", "API key", fixed("HRKU-AA", URLSAFE, 58), "HEROKU_API_KEY"),
    Format(
        "Postman",
        "API key",
        lambda r: f"PMAK-{pick(r, HEX, 24)}-{pick(r, HEX, 34)}",
        "POSTMAN_API_KEY",
    ),
    Format(
        "Terraform Cloud",
        "API token",
        lambda r: f"{pick(r, ALNUM, 14)}.atlasv1.{pick(r, URLSAFE, 67)}",
        "TFE_TOKEN",
    ),
    Format("HashiCorp Vault", "service token", fixed("hvs.", URLSAFE, 90), "VAULT_TOKEN"),
    Format("Doppler", "service token", fixed("dp.st.prd.", ALNUM, 40), "DOPPLER_TOKEN"),
    Format("Pulumi", "access token", fixed("pul-", HEX, 40), "PULUMI_ACCESS_TOKEN"),
    Format("Supabase", "access token", fixed("sbp_", HEX, 40), "SUPABASE_ACCESS_TOKEN"),
    Format("New Relic", "user API key", fixed("NRAK-", UPPER_NUM, 27), "NEW_RELIC_API_KEY"),
    Format("Figma", "personal access token", fixed("figd_", URLSAFE, 40), "FIGMA_TOKEN"),
    Format("Notion", "integration token", fixed("ntn_", ALNUM, 46), "NOTION_TOKEN"),
    Format(
        "Airtable",
        "personal access token",
        lambda r: f"pat{pick(r, ALNUM, 14)}.{pick(r, HEX, 64)}",
        "AIRTABLE_TOKEN",
    ),
    Format(
        "Telegram",
        "bot token",
        lambda r: f"{r.randint(10**8, 10**10 - 1)}:AA{pick(r, URLSAFE, 33)}",
        "TELEGRAM_BOT_TOKEN",
    ),
    Format(
        "age",
        "secret key",
        lambda r: "AGE-SECRET-KEY-1" + pick(r, BECH32, 58).upper(),
        "SOPS_AGE_KEY",
    ),
    Format("Alibaba Cloud", "AccessKey id", fixed("LTAI", ALNUM, 20), "ALIBABA_ACCESS_KEY_ID"),
    Format("Tencent Cloud", "SecretId", fixed("AKID", ALNUM, 32), "TENCENT_SECRET_ID"),
    Format(
        "Azure",
        "storage account key",
        lambda r: (
            "DefaultEndpointsProtocol=https;AccountName=teamstore;AccountKey="
            + base64.b64encode(r.randbytes(64)).decode()
            + ";EndpointSuffix=core.windows.net"
        ),
        "AZURE_STORAGE_CONNECTION_STRING",
    ),
    Format("Groq", "API key", fixed("gsk_", ALNUM, 52), "GROQ_API_KEY"),
    Format("Replicate", "API token", fixed("r8_", ALNUM, 37), "REPLICATE_API_TOKEN"),
    Format("Perplexity", "API key", fixed("pplx-", ALNUM, 48), "PPLX_API_KEY"),
    Format("Contentful", "personal access token", fixed("CFPAT-", URLSAFE, 43), "CF_TOKEN"),
    Format("RubyGems", "API key", fixed("rubygems_", HEX, 48), "GEM_HOST_API_KEY"),
    Format("PlanetScale", "service token", fixed("pscale_tkn_", URLSAFE, 43), "PSCALE_TOKEN"),
    Format("Buildkite", "API access token", fixed("bkua_", HEX, 40), "BUILDKITE_TOKEN"),
    Format(
        "Dynatrace",
        "API token",
        lambda r: f"dt0c01.{pick(r, UPPER_NUM, 24)}.{pick(r, UPPER_NUM, 64)}",
        "DT_API_TOKEN",
    ),
    Format("xAI", "API key", fixed("xai-", ALNUM, 80), "XAI_API_KEY"),
    Format(
        "Braintree",
        "access token",
        lambda r: (
            f"access_token$production${pick(r, string.ascii_lowercase + string.digits, 16)}"
            f"${pick(r, HEX, 32)}"
        ),
        "BRAINTREE_TOKEN",
    ),
    Format(
        "Mapbox",
        "secret token",
        lambda r: "sk.eyJ1Ijoi" + pick(r, ALNUM, 60) + "." + pick(r, URLSAFE, 22),
        "MAPBOX_SECRET_TOKEN",
    ),
    Format(
        "JSON Web Token",
        "signed token",
        lambda r: jwt_body(r, {"sub": pick(r, string.digits, 8), "role": "service"}),
        "SERVICE_JWT",
        "jwt",
    ),
    Format(
        "OpenSSH",
        "private key",
        lambda r: (
            "-----BEGIN OPENSSH PRIVATE KEY-----\n"
            + "\n".join(pick(r, B64, 70) for _ in range(3))
            + "\n-----END OPENSSH PRIVATE KEY-----"
        ),
        "DEPLOY_KEY",
        "key-block",
    ),
)
USERS = ("deploy", "app", "svc_reports", "ci", "admin")
HOSTS = ("db.internal", "pg-staging-01", "10.0.3.12", "mysql.prod.example.net")


def password(rng: Rng) -> str:
    words = ("zebra", "orchard", "copper", "lantern", "walrus", "tundra", "mango", "quartz")
    return f"{rng.choice(words).capitalize()}{rng.randint(10, 99)}-{rng.choice(words)}!"


def short_password(rng: Rng) -> str:
    return pick(rng, string.ascii_lowercase, 3) + str(rng.randint(10, 99))


# Secrets with no provider prefix: what the words around them say is a secret.
def _context_dev(rng: Rng) -> list[tuple[str, str, str]]:
    """(class, placement, text) of secrets named by their surroundings: the dev part."""
    pw = password(rng)
    hexkey = pick(rng, HEX, 40)
    aws_secret = pick(rng, B64, 40)
    return [
        ("keyword", "env", f"export DB_PASS={pw} && ./manage.py migrate"),
        ("keyword", "command", f"mysql -u {rng.choice(USERS)} -p{pw} reports < dump.sql"),
        ("keyword", "command", f"curl -u ci:{pw} https://nexus.example.net/repository/"),
        ("keyword", "command", f"redis-cli -h cache.internal -a {pw} FLUSHALL"),
        ("keyword", "env", f"PGPASSWORD={short_password(rng)} psql -h db.internal -U app"),
        ("keyword", "prose", f"The staging database password is {pw}, rotate it monthly."),
        ("keyword", "wrapped", f"- the staging database password is\n  {pw}\n- ask ops for prod"),
        ("keyword", "header", f"X-Hub-Signature-256: sha256={pick(rng, HEX, 64)}"),
        (
            "keyword",
            "split-hex",
            "Webhook signing secret: " + " ".join(hexkey[i : i + 8] for i in range(0, 40, 8)),
        ),
        (
            "keyword",
            "split-hex",
            "HMAC key " + "-".join(hexkey[i : i + 8] for i in range(0, 40, 8)),
        ),
        ("keyword", "fullwidth", f"ｐａｓｓｗｏｒｄ: {pw}"),
        ("keyword", "prose", f"AWS secret access key {aws_secret} for the backup user"),
        ("keyword", "yaml", f"database:\n  host: {rng.choice(HOSTS)}\n  password: {pw}\n"),
        ("keyword", "table", f"| env | user | password |\n|---|---|---|\n| staging | app | {pw} |"),
        ("keyword", "zh", f"測試環境的資料庫密碼是 {pw}，每月輪換。"),
        (
            "keyword",
            "json",
            f'{{"client_id": "reports", "client_secret": "{pick(rng, ALNUM, 32)}"}}',
        ),
        (
            "url",
            "prose",
            f"DATABASE_URL=postgres://{rng.choice(USERS)}:{pw}@{rng.choice(HOSTS)}:5432/app",
        ),
        ("keyword", "header", f"Authorization: Bearer {pick(rng, ALNUM, 40)}"),
        ("keyword", "env", f"DD_API_KEY={pick(rng, HEX, 32)}"),
        (
            "keyword",
            "prose",
            f"Heroku API key {rng.randbytes(16).hex()[:8]}-{pick(rng, HEX, 4)}-4{pick(rng, HEX, 3)}"
            f"-a{pick(rng, HEX, 3)}-{pick(rng, HEX, 12)} for the deploy bot",
        ),
    ]


def _context_heldout(rng: Rng) -> list[tuple[str, str, str]]:
    """The held-out part's secrets named by their surroundings: other commands and wording."""
    pw = password(rng)
    hexkey = pick(rng, HEX, 48)
    return [
        ("keyword", "command", f"sshpass -p '{pw}' ssh deploy@bastion.internal"),
        ("keyword", "command", f"docker login -u ci -p {pw} registry.example.net"),
        ("keyword", "command", f'psql "host=db.internal user=app password={pw} dbname=app"'),
        ("keyword", "env", f"MYSQL_PWD={short_password(rng)} mysqldump reports > r.sql"),
        ("keyword", "env", f"export REDIS_PASSWORD='{pw}'"),
        ("keyword", "command", f'mongosh "mongodb://admin:{pw}@mongo-0.internal:27017"'),
        ("keyword", "prose", f"Log in to Grafana as admin with password {pw} until SSO lands."),
        (
            "keyword",
            "wrapped",
            f"The SFTP account for the bank feed uses the password\n{pw}\n(ask Lena).",
        ),
        ("keyword", "wrapped", f"* signing key for release manifests:\n  `{hexkey}`"),
        ("keyword", "header", f"X-Api-Key: {pick(rng, ALNUM, 32)}"),
        (
            "keyword",
            "split-hex",
            "API secret " + " ".join(hexkey[i : i + 4] for i in range(0, 32, 4)),
        ),
        ("keyword", "fullwidth", f"ＤＢ　ｐａｓｓｗｏｒｄ　ｉｓ {pw}"),
        ("keyword", "toml", f'[registry]\nusername = "ci"\npassword = "{pw}"\n'),
        (
            "keyword",
            "table",
            f"| service | secret |\n| --- | --- |\n| billing webhook | {pick(rng, ALNUM, 36)} |",
        ),
        ("keyword", "zh", f"生产环境 Redis 的密码：{pw}"),
        ("keyword", "ja", f"ステージングのパスワードは {pw} です。"),
        ("keyword", "yaml", f"smtp:\n  user: mailer\n  pass: {pw}\n"),
        ("keyword", "env", f"TWILIO_AUTH_TOKEN={pick(rng, HEX, 32)}"),
        (
            "url",
            "prose",
            f"Clone with https://oauth2:{pick(rng, ALNUM, 24)}@gitlab.example.net/team/app.git",
        ),
        ("keyword", "npmrc", f"//registry.npmjs.org/:_authToken={pick(rng, ALNUM, 36)}"),
    ]


def _benign_dev(rng: Rng) -> list[tuple[str, str, str]]:
    sha = pick(rng, HEX, 40)
    uuid = uuid4_like(rng, "8")
    png = "iVBORw0KGgoAAAANSUhEUgAA" + base64.b64encode(rng.randbytes(90)).decode()
    return [
        ("hash", "prose", f"The fix landed in commit {sha}; cherry-pick it onto release/2.4."),
        ("hash", "prose", f"The commit that introduced the signing key check is {sha}."),
        ("hash", "prose", f"sha256 of the installer: {pick(rng, HEX, 64)}"),
        ("hash", "yaml", f"image: registry.example.net/api@sha256:{pick(rng, HEX, 64)}"),
        ("hash", "json", f'"integrity": "sha512-{base64.b64encode(rng.randbytes(64)).decode()}"'),
        ("uuid", "prose", f"Every request carries a trace id such as {uuid}."),
        ("uuid", "table", f"| tenant | id |\n|---|---|\n| acme | {uuid} |"),
        ("image", "markdown", f"![logo](data:image/png;base64,{png})"),
        ("identifier", "prose", "Call `AbstractTokenRefreshSchedulerFactoryBean` only from tests."),
        (
            "identifier",
            "prose",
            "test_reset_password_with_expired_token_returns_401 is flaky on CI.",
        ),
        (
            "identifier",
            "prose",
            "The password reset token expires after 30 minutes (PASSWORD_RESET_TTL).",
        ),
        ("placeholder", "env", "export GITHUB_TOKEN=<your-token> before running the script."),
        ("placeholder", "env", "DB_PASS=${DB_PASS:?set it in .env.local}"),
        ("placeholder", "yaml", "token: {{ secrets.NPM_TOKEN }}"),
        (
            "placeholder",
            "prose",
            "Tokens look like ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX; never paste one.",
        ),
        (
            "public",
            "prose",
            f"The Stripe publishable key pk_live_{pick(rng, ALNUM, 24)} is safe in the web bundle.",
        ),
        (
            "public",
            "prose",
            "Deploy key (public half): ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI"
            f"{pick(rng, B64, 43)} ci@example",
        ),
        ("prose", "zh", "密碼學是研究資訊安全的學科，2023年起本課程改用新教材。"),
        ("prose", "zh", "修改密碼後需要重新登入，新密碼至少12位。"),
        (
            "prose",
            "prose",
            "Passwords must be at least 12 characters; the policy lives in auth/policy.py.",
        ),
        (
            "prose",
            "env",
            "PASSWORD_MIN_LENGTH=12 and TOKEN_TTL_SECONDS=3600 are set in settings.py.",
        ),
        ("prose", "command", "Run `mysql -u root -p reports` and type the password when asked."),
        (
            "identifier",
            "prose",
            "The pod web-7d4b9c6f5-x2k9p restarted 14 times; see ARN "
            "arn:aws:iam::123456789012:role/deploy.",
        ),
        ("hash", "prose", f"Short SHAs like {sha[:12]} are fine in commit messages."),
        (
            "hash",
            "prose",
            f"Webpack names the bundle main.{pick(rng, HEX, 20)}.js for cache busting.",
        ),
        ("identifier", "prose", f"Job ids are ULIDs such as 01H{pick(rng, BASE32, 23)}."),
        ("public", "yaml", f"ca.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t{pick(rng, B64, 60)}"),
        ("prose", "prose", "The API key goes in the X-Api-Key header, never in the query string."),
        ("placeholder", "yaml", "api_key: ${{ secrets.SENDGRID_API_KEY }}"),
        ("prose", "prose", "Never put the GitHub token in the README or in a commit message."),
        ("identifier", "prose", f"Tag v2.4.1-14-g{sha[:7]} is what `git describe` prints on main."),
        (
            "identifier",
            "prose",
            "Slack channel C04ABCDEF12 gets the alerts; GA property G-7XK2M9QWER.",
        ),
    ]


def _benign_heldout(rng: Rng) -> list[tuple[str, str, str]]:
    sha = pick(rng, HEX, 40)
    uuid = uuid4_like(rng, "9")
    gif = "R0lGODlhAQABAIAAAP" + base64.b64encode(rng.randbytes(60)).decode()
    return [
        ("hash", "prose", f"Revert {sha} if the migration fails again."),
        ("hash", "table", f"| release | commit |\n|---|---|\n| 2.4.1 | {sha} |"),
        (
            "hash",
            "prose",
            f"Checksum (SHA-256) for node-v20.11.1-linux-x64.tar.xz: {pick(rng, HEX, 64)}",
        ),
        (
            "hash",
            "prose",
            f"The Go module cache verified h1:{base64.b64encode(rng.randbytes(32)).decode()}",
        ),
        ("hash", "yaml", f"- uses: actions/checkout@{sha} # v4.1.1"),
        ("uuid", "prose", f"Request {uuid} timed out at the gateway after 30 s."),
        ("uuid", "yaml", f"subscription_id: {uuid}"),
        ("image", "markdown", f'<img src="data:image/gif;base64,{gif}" alt="spacer">'),
        (
            "identifier",
            "prose",
            "`SecretManagerCredentialProviderChainConfiguration` wires the vault client.",
        ),
        (
            "identifier",
            "prose",
            "Name tests like should_reject_login_when_password_is_expired_and_mfa_missing.",
        ),
        (
            "placeholder",
            "command",
            'curl -H "Authorization: Bearer $API_TOKEN" https://api.example.net/v1/jobs',
        ),
        ("placeholder", "env", "export OPENAI_API_KEY=sk-...your-key-here..."),
        ("placeholder", "yaml", "password: changeme  # local docker-compose only"),
        (
            "placeholder",
            "prose",
            "Set the secret with `gh secret set NPM_TOKEN` and reference ${{ secrets.NPM_TOKEN }}.",
        ),
        (
            "public",
            "prose",
            "Mapbox public token pk.eyJ1IjoiZXhhbXBsZSIsImEiOiJ"
            f"{pick(rng, ALNUM, 20)} goes in the map config.",
        ),
        (
            "public",
            "prose",
            "-----BEGIN PUBLIC KEY----- blocks in docs/keys/ are the verification keys.",
        ),
        ("prose", "zh", "忘記密碼時請走自助重設流程，不要找管理員要密碼。"),
        ("prose", "zh", "令牌桶限流器每秒補充100個令牌。"),
        ("prose", "prose", "The token bucket refills 100 tokens per second per API key."),
        (
            "prose",
            "prose",
            "Rotate the deploy key every 90 days; the runbook is docs/rotate-keys.md.",
        ),
        (
            "identifier",
            "prose",
            "Kubernetes secret names such as billing-api-credentials-7f9c are generated by Helm.",
        ),
        (
            "hash",
            "prose",
            f"GPG key fingerprint: {' '.join(pick(rng, HEX.upper(), 4) for _ in range(10))}",
        ),
        (
            "identifier",
            "prose",
            "Version 2024.11.0-rc.3+build.20241102T0931Z is the last before the freeze.",
        ),
        ("prose", "ja", "パスワードは12文字以上にしてください。"),
        (
            "hash",
            "prose",
            f'The CDN answers with ETag "{pick(rng, HEX, 40)}" for unchanged assets.',
        ),
        (
            "hash",
            "prose",
            f"CSP allows script-src 'sha256-{base64.b64encode(rng.randbytes(32)).decode()}'.",
        ),
        (
            "identifier",
            "prose",
            f"Snowflake ids like {rng.randint(10**18, 10**19 - 1)} sort by creation time.",
        ),
        ("prose", "prose", "The reset page is https://accounts.example.net/reset-password?step=2."),
        (
            "identifier",
            "prose",
            "PLAT-1234 tracks the move of secrets to Vault; see secret/staging/db.",
        ),
        ("placeholder", "command", 'mysql -u app -p"$MYSQL_PASSWORD" reports'),
        ("prose", "zh", "API 金鑰放在 Vault 的 secret/prod/api 路徑，不要寫進程式碼。"),
        (
            "identifier",
            "prose",
            f"The video id is {pick(rng, URLSAFE, 11)}; the player loads it lazily.",
        ),
    ]


# Where a provider's token is written: the dev part's templates and the held-out part's.
DEV_PLACES: tuple[tuple[str, Callable[[Format, str], str]], ...] = (
    ("prose", lambda f, t: f"Use the {f.provider} {f.name} {t} for the staging deploys."),
    ("backticks", lambda f, t: f"Set `{f.env}` to `{t}` in the CI settings."),
    ("env", lambda f, t: f"export {f.env}={t}"),
    ("yaml", lambda f, t: f"deploy:\n  {f.env.lower()}: {t}\n  region: eu-west-1\n"),
    (
        "wrapped",
        lambda f, t: (
            f"- For the dashboards, use the {f.provider} {f.name}\n  `{t}` in the"
            " Authorization header."
        ),
    ),
    ("table", lambda f, t: f"| service | credential |\n|---|---|\n| {f.provider} | {t} |"),
    ("bare", lambda f, t: f"{t}"),
)
HELDOUT_PLACES: tuple[tuple[str, Callable[[Format, str], str]], ...] = (
    ("bullet", lambda f, t: f"* {f.provider}: {t} (owned by the platform team)"),
    ("json", lambda f, t: f'{{"{f.env.lower()}": "{t}", "timeout": 30}}'),
    ("command", lambda f, t: f"docker run -e {f.env}={t} ghcr.io/team/worker:2.4"),
    ("toml", lambda f, t: f'[{f.provider.lower().replace(" ", "_")}]\ncredential = "{t}"\n'),
    (
        "wrapped",
        lambda f, t: (
            f"When the nightly job fails, it is usually because someone rotated\n{t}\n"
            "without telling the data team."
        ),
    ),
    ("zh", lambda f, t: f"{f.provider} 的憑證是 {t}，請勿外傳。"),
    ("code", lambda f, t: f'client = Client(credential="{t}", retries=3)'),
)


def _rows(
    rng: Rng,
    places: tuple[tuple[str, Callable[[Format, str], str]], ...],
    context: Callable[[Rng], list[tuple[str, str, str]]],
    benign: Callable[[Rng], list[tuple[str, str, str]]],
) -> list[dict[str, str]]:
    rows = []
    for i, fmt in enumerate(FORMATS):
        for j in range(2):
            place, template = places[(2 * i + j) % len(places)]
            if fmt.kind == "key-block" and place not in ("bare", "prose", "wrapped", "bullet"):
                place, template = places[0]
            value = fmt.make(rng)
            text = template(fmt, value)
            lang = "zh" if place == "zh" else "en"
            cls = {"url": "url", "jwt": "jwt", "key-block": "private-key"}.get(fmt.kind, "provider")
            rows.append(
                {
                    "lang": lang,
                    "text": text,
                    "label": "secret",
                    "class": cls,
                    "provider": f"{fmt.provider} {fmt.name}",
                    "placement": place,
                }
            )
    for cls, place, text in context(rng):
        lang = {"zh": "zh", "ja": "ja"}.get(place, "en")
        rows.append(
            {
                "lang": lang,
                "text": text,
                "label": "secret",
                "class": cls,
                "provider": "",
                "placement": place,
            }
        )
    for cls, place, text in benign(rng) + benign(rng) + benign(rng):
        lang = {"zh": "zh", "ja": "ja"}.get(place, "en")
        rows.append(
            {
                "lang": lang,
                "text": text,
                "label": "benign",
                "class": cls,
                "provider": "",
                "placement": place,
            }
        )
    # A benign text twice would count twice: keep one of each.
    seen: set[str] = set()
    out = []
    for row in rows:
        if row["text"] not in seen:
            seen.add(row["text"])
            out.append(row)
    return out


def make() -> dict[str, list[dict[str, str]]]:
    return {
        "secret_formats_dev.jsonl": _rows(Rng(3901), DEV_PLACES, _context_dev, _benign_dev),
        "secret_formats_heldout.jsonl": _rows(
            Rng(3902), HELDOUT_PLACES, _context_heldout, _benign_heldout
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    for name, rows in make().items():
        providers = {r["provider"].split(" ")[0] for r in rows if r["provider"]}
        secrets = sum(r["label"] == "secret" for r in rows)
        print(f"{name}: {len(rows)} rows, {secrets} secret, {len(providers)} providers")
        if args.write:
            text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
            (DATA / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
