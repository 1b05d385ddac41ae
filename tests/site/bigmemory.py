"""A team's memory after two months of use, for the site's layout and Monday-morning tests.

Over a hundred atoms in English and Chinese, committed by four people on dated days (author
and committer dates in the past, relative to today): an import and steady additions weeks
ago, then this week a decision that supersedes an older one (marked by `memkit validate
--fix`), a decision approved out of `shared/_pending/`, a change to a decision approved the
way `memkit review approve` writes it (over the decision), new atoms in both languages, an edit,
an archived atom, a proposal still waiting for review, and a teammate's `--no-verify` commit
that contradicts a live atom (found by the real `memkit audit --all`). Two members' usage
exports say which atoms sessions used.

`THIS_WEEK` and `EARLIER` name what a person must and must not read under "This week".
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
from pathlib import Path

from tests.helpers import atom_text, make_memory_repo, memkit, write_atom

PEOPLE = {
    "alice": ("Alice Chen", "alice@example.com"),
    "bob": ("Bob Martin", "bob@example.com"),
    "carol": ("Carol Diaz", "carol@example.com"),
    "ming": ("陳小明", "ming@example.com"),
}
# (id, team, admin port)
SERVICES = (
    ("payments-api", "payments", 8443),
    ("auth-service", "identity", 8080),
    ("search-indexer", "discovery", 9200),
    ("notifications", "growth", 6380),
    ("billing-worker", "payments", 8090),
    ("media-upload", "content", 8000),
    ("recommendations", "discovery", 9042),
    ("admin-console", "internal-tools", 3000),
    ("ledger", "payments", 8500),
    ("feature-flags", "platform", 7070),
)
PITFALLS = (
    "restarts drop in-flight jobs unless they are drained first: run `make drain` and wait "
    "for the queue depth to reach 0",
    "its health check returns 200 before the cache is warm; the load balancer must wait for "
    "`/ready`, not `/health`",
    "the connection pool is 20 per pod; more replicas than 12 exhaust the database's "
    "`max_connections` of 300",
    "timestamps are stored in UTC but the admin export shows Europe/Berlin; convert before "
    "comparing",
    "a schema migration locks the table; run it with `--lock-timeout 5s` outside business hours",
)


def _general() -> list[tuple[str, str, str, str, str, str]]:
    """(path, id, type, title, body, extra): what a team writes besides its service notes."""
    shared = [
        ("git-branch-names", "procedure", "Branch names say the ticket",
         "- Name branches `<ticket>-<short-topic>`, e.g. `PAY-412-refund-retry`.\n"
         "- CI refuses pushes to branches without a ticket prefix.", "triggers: [branch, git]\n"),
        ("code-review-two-approvals", "decision", "Two approvals before merging to main",
         "- Every pull request needs two approvals, one from the owning team.\n"
         "- Hotfixes may merge with one approval and get the second within a day.",
         "triggers: [review, pull request]\n"),
        ("python-version", "decision", "Services run Python 3.12",
         "- Every Python service image pins Python 3.12; upgrade them together.",
         "triggers: [python]\n"),
        ("go-version", "decision", "Go services build with Go 1.22",
         "- `go.mod` says `go 1.22`; the CI image `ci-go:1.22` matches it.",
         "triggers: [golang]\nsupersedes: [go-version-121]\n"),
        ("go-version-121", "decision", "Go services build with Go 1.21",
         "- `go.mod` says `go 1.21`.", "triggers: [golang]\nstatus: superseded\n"
         "supersedes: [go-version-120]\nsuperseded_by: [go-version]\n"),
        ("go-version-120", "decision", "Go services build with Go 1.20",
         "- `go.mod` says `go 1.20`.", "triggers: [golang]\nstatus: superseded\n"
         "superseded_by: [go-version-121]\n"),
        ("node-version", "fact", "Node.js 20 LTS in every frontend build",
         "- `.nvmrc` pins `20`; the Docker base image is `node:20-alpine`.",
         "triggers: [node, nvm]\n"),
        ("frontend-package-manager", "decision", "Frontend packages are installed with npm",
         "- Use `npm ci` in CI and `npm install` locally; commit `package-lock.json`.",
         "triggers: [npm, frontend, package manager]\n"),
        ("secrets-in-vault", "decision", "Secrets live in Vault, never in the repository",
         "- Read them at start-up from `secret/data/<service>`; CI gets a short-lived token.",
         "triggers: [secret, vault]\n"),
        ("staging-resets-sunday", "fact", "Staging is reset every Sunday at 02:00 UTC",
         "- Data written to staging during the week is gone on Monday; seed it with "
         "`make seed-staging`.", "triggers: [staging]\n"),
        ("oncall-handover", "procedure", "On-call hands over on Monday at 10:00",
         "1. The outgoing person writes open incidents into #oncall.\n"
         "2. The incoming person acknowledges the PagerDuty schedule change.",
         "triggers: [on-call, pagerduty]\n"),
        ("incident-severity", "fact", "Incident severities SEV1 to SEV3",
         "- SEV1: customers cannot pay or log in; page everyone on call.\n"
         "- SEV2: a feature is down; page the owning team.\n- SEV3: degraded; a ticket.",
         "triggers: [incident, sev1]\nrelated: [postmortem-within-5-days, oncall-handover]\n"),
        ("postmortem-within-5-days", "procedure", "A postmortem within five working days",
         "- Every SEV1 and SEV2 gets a blameless postmortem in `docs/postmortems/` within "
         "five working days.", "triggers: [postmortem, incident]\n"),
        ("redis-maxmemory", "fact", "Redis maxmemory is 2gb on the shared cluster",
         "- The shared Redis cluster runs with `maxmemory 2gb` and `allkeys-lru`; larger "
         "caches need their own cluster.", "triggers: [redis, maxmemory]\n"),
        ("kafka-retention", "fact", "Kafka topics keep seven days of data",
         "- `retention.ms` is 604800000 on every topic unless its owner asked otherwise.",
         "triggers: [kafka, retention]\n"),
        ("log-format-json", "decision", "Services log JSON lines",
         "- One JSON object a line with `ts`, `level`, `msg`, `trace_id`; no multi-line "
         "stack traces.", "triggers: [logging, json]\n"),
        ("feature-flag-cleanup", "procedure", "Remove a feature flag within 30 days of 100 %",
         "- Once a flag serves 100 % for a week, open a ticket to delete it and its dead "
         "branch.", "triggers: [feature flag]\n"),
        ("db-migrations-expand-contract", "architecture", "Schema changes expand, then contract",
         "- Add the new column, deploy code that writes both, backfill, switch reads, then "
         "drop the old column in a later release.", "triggers: [migration, schema]\n"),
        ("api-versioning", "architecture", "Public APIs are versioned in the path",
         "- `/v1/…`, `/v2/…`; a version lives at least six months after its successor ships.",
         "triggers: [api, versioning]\n"),
        ("timeouts-default", "fact", "Outgoing HTTP calls time out after 3 s",
         "- The shared HTTP client sets a 3 s timeout and two retries with jitter.",
         "triggers: [http, timeout client]\n"),
        ("docker-base-images", "decision", "Base images come from our registry",
         "- Build `FROM registry.acme.internal/base/<lang>:<version>`; never from Docker Hub "
         "directly.", "triggers: [docker, base image]\n"),
        ("terraform-state", "fact", "Terraform state lives in the infra-state bucket",
         "- One state file per environment and stack, locked through DynamoDB table "
         "`tf-locks`.", "triggers: [terraform]\n"),
        ("load-test-before-launch", "procedure", "Load test before a launch",
         "- Run `k6 run load/launch.js` against staging at twice the expected peak.",
         "triggers: [load test, k6]\n"),
        ("pr-description-template", "preference", "Pull request descriptions say why",
         "- Start with the problem, then the change, then how it was tested.",
         "triggers: [pull request]\n"),
        ("metrics-prometheus", "architecture", "Metrics are scraped by Prometheus",
         "- Every service exposes `/metrics` on its admin port; dashboards live in Grafana "
         "folder `services`.", "triggers: [metrics, prometheus]\n"),
        ("cors-allowlist", "pitfall", "CORS: the allowlist is per environment",
         "- `CORS_ORIGINS` differs between staging and production; a new frontend domain "
         "needs both.", "triggers: [cors]\n"),
        ("mobile-release-train", "fact", "Mobile apps ship every second Thursday",
         "- The release branch is cut on Monday of the release week; fixes after that need "
         "the release manager.", "triggers: [mobile, release]\n"),
        ("jwt-expiry", "fact", "Access tokens expire after 15 minutes",
         "- Refresh tokens last 30 days; rotate them on every use.", "triggers: [jwt, token]\n"),
        ("s3-bucket-naming", "preference", "Bucket names start with the team",
         "- `<team>-<purpose>-<env>`, e.g. `content-uploads-prod`.",
         "triggers: [s3 bucket]\n"),
        ("error-budget", "decision", "Feature work pauses when the error budget is spent",
         "- Each service has a 99.9 % monthly SLO; past the budget, the team fixes "
         "reliability before new features.", "triggers: [slo, error budget]\n"),
        ("pairing-fridays", "preference", "Pairing on Friday afternoons",
         "- Friday afternoons are for pairing and reviews, not for production deploys.",
         "triggers: [pairing, friday]\n"),
        ("openapi-first", "architecture", "APIs are designed OpenAPI-first",
         "- Write `api/openapi.yaml`, review it, then generate the server stubs with "
         "`make gen-api`.", "triggers: [openapi]\n"),
        ("adr-0001-monorepo", "architecture", "One repository per service",
         "- Imported from ADR 0001 (2019): every service has its own repository and "
         "pipeline.", "triggers: [repository layout]\n"),
        ("dns-ttl", "fact", "Internal DNS records have a 60 s TTL",
         "- Failover of an internal service takes up to a minute to reach every client.",
         "triggers: [dns, ttl]\n"),
        ("dependency-updates-weekly", "procedure", "Dependency updates are merged on Wednesdays",
         "- Renovate opens its pull requests on Tuesday night; the owning team merges them "
         "on Wednesday.", "triggers: [renovate, dependencies]\n"),
    ]  # fmt: skip
    chinese = [
        ("cache-ttl-zh", "fact", "使用者資料快取十分鐘後失效",
         "- 使用者資料的快取在十分鐘後失效，修改設定請改 `cache.ttl`。", "triggers: [快取]\n"),
        ("release-freeze-zh", "decision", "年底十二月二十日起凍結發布",
         "- 每年十二月二十日到一月三日不發布新功能，只修嚴重問題。", "triggers: [發布, 凍結]\n"),
        ("log-retention-zh", "fact", "日誌保留三十天",
         "- 所有服務的日誌在 Loki 保留三十天，稽核日誌另存一年。", "triggers: [日誌, loki]\n"),
        ("code-style-zh", "preference", "程式碼註解用英文寫",
         "- 註解和提交訊息一律用英文，文件可以用中文。", "triggers: [註解]\n"),
        ("db-backup-zh", "procedure", "資料庫每天凌晨三點備份",
         "1. 備份存在 `backups-prod` 桶。\n2. 每月第一個週一演練還原。",
         "triggers: [備份, 資料庫]\n"),
        ("payment-timeout-zh", "pitfall", "金流回呼逾時要重試三次",
         "- 金流供應商的回呼有時超過五秒，必須重試三次並記錄交易編號。",
         "triggers: [金流, 回呼]\n"),
        ("api-rate-limit-zh", "fact", "公開 API 每分鐘限制六百次請求",
         "- 超過限制回傳 429，標頭 `Retry-After` 說明要等幾秒。", "triggers: [限流, api]\n"),
        ("oncall-phone-zh", "procedure", "值班手機要開聲音",
         "- 值班期間 PagerDuty 通知必須響鈴，五分鐘內確認。",
         "triggers: [值班]\nrelated: [oncall-handover]\n"),
        ("translation-files-zh", "fact", "翻譯檔放在 locales 目錄",
         "- 每種語言一個 JSON 檔，例如 `locales/zh-TW.json`。", "triggers: [翻譯, i18n]\n"),
        ("test-coverage-zh", "decision", "新程式碼測試覆蓋率至少百分之八十",
         "- CI 會檢查變更檔案的覆蓋率，低於百分之八十就失敗。", "triggers: [測試, 覆蓋率]\n"),
        ("image-size-zh", "pitfall", "上傳圖片超過十 MB 會被拒絕",
         "- 前端要先壓縮，否則閘道回傳 413。", "triggers: [圖片, 上傳]\n"),
        ("meeting-notes-zh", "preference", "會議紀錄寫在 wiki",
         "- 每次架構會議的紀錄放在 wiki 的「架構決策」頁。", "triggers: [會議]\n"),
        ("vpn-access-zh", "procedure", "新人第一天申請 VPN",
         "- 在 IT 入口網站填表，主管核准後約兩小時開通。", "triggers: [vpn, 新人]\n"),
        ("holiday-oncall-zh", "fact", "春節期間值班加倍補休",
         "- 春節值班一天補休兩天，排班表在一月初公布。", "triggers: [春節, 值班表]\n"),
        ("sql-review-zh", "procedure", "正式環境的 SQL 要兩人覆核",
         "- 直接在正式資料庫執行的 SQL，需要另一位工程師在工單上覆核。", "triggers: [sql, 覆核]\n"),
        ("cdn-cache-zh", "pitfall", "CDN 快取要手動清除",
         "- 更新靜態檔後執行 `make purge-cdn`，否則使用者最多一小時看到舊版。",
         "triggers: [cdn, 清除快取]\n"),
    ]  # fmt: skip
    out = [(f"shared/{i}.md", i, t, title, body, extra) for i, t, title, body, extra in shared]
    out += [(f"shared/{i}.md", i, t, title, body, extra) for i, t, title, body, extra in chinese]
    return out


def _service_atoms() -> list[tuple[str, str, str, str, str, str]]:
    out = []
    for n, (svc, team, port) in enumerate(SERVICES):
        out += [
            (f"shared/{svc}-owner.md", f"{svc}-owner", "fact", f"{svc} is owned by {team}",
             f"- Questions about {svc} go to #team-{team}; its pages go to the PagerDuty "
             f"schedule `{team}-primary`.", f"triggers: [{svc}, owner]\n"),
            (f"shared/{svc}-deploy.md", f"{svc}-deploy", "procedure", f"Deploying {svc}",
             f"1. Merge to `main`; CI builds `registry.acme.internal/{svc}:<sha>`.\n"
             f"2. `make deploy SERVICE={svc} ENV=staging`, check its dashboard, then "
             "`ENV=prod`.",
             f"triggers: [{svc}, deploy]\nrelated: [{svc}-runbook, {svc}-dashboards]\n"),
            (f"shared/{svc}-runbook.md", f"{svc}-runbook", "procedure",
             f"When {svc} alerts",
             f"1. Look at its pods: `kubectl -n {team} get pods -l app={svc}`.\n"
             f"2. Read the last hour of its logs in Loki (`{{app=\"{svc}\"}}`).\n"
             f"3. Still failing: roll back with `make rollback SERVICE={svc}`.",
             f"triggers: [{svc}, alert]\n"),
            (f"shared/{svc}-dashboards.md", f"{svc}-dashboards", "fact",
             f"{svc} dashboards and alerts",
             f"- Grafana dashboard `svc-{svc}` (admin port {port}); its alerts page "
             f"`{team}-primary`.", f"triggers: [{svc}, grafana]\n"),
            (f"roles/programmer/{svc}-pitfall.md", f"{svc}-pitfall", "pitfall",
             f"{svc}: {PITFALLS[n % len(PITFALLS)].split(';')[0]}",
             f"- In {svc}, {PITFALLS[n % len(PITFALLS)]}.", f"triggers: [{svc}]\n"),
        ]  # fmt: skip
    return out


# What this week brought, and what came before it (by id): the start page's "This week".
THIS_WEEK = {
    "new": ["frontend-pnpm", "tracing-opentelemetry", "regression-before-release-zh",
            "grpc-deadline-pitfall"],
    "superseded": ["frontend-package-manager"],
    "edited": ["jwt-expiry", "redis-maxmemory", "code-review-two-approvals"],
    "retired": ["mobile-release-train"],
}  # fmt: skip
EARLIER = ["git-branch-names", "python-version", "payments-api-deploy", "cache-ttl-zh",
           "use-buildkit"]  # fmt: skip
PENDING_ID = "ci-self-hosted-runners"
REVISES = "code-review-two-approvals"  # changed this week through review: edited, not new
CONFLICT = ("redis-maxmemory-4gb", "redis-maxmemory")


def _commit(repo: Path, who: str, day: dt.date, message: str, *, verify: bool = False) -> None:
    name, email = PEOPLE[who]
    stamp = f"{day.isoformat()}T10:00:00+00:00"
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
        "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_DATE": stamp,
    }
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
    args = ["git", "commit", "-q", "-m", message, *([] if verify else ["--no-verify"])]
    done = subprocess.run(args, cwd=repo, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


Item = tuple[str, str, str, str, str, str]  # path, id, type, title, body, extra


def _write(repo: Path, item: Item, created: dt.date, author: str = "") -> None:
    path, atom_id, kind, title, body, extra = item
    who = f"author: {PEOPLE[author][1]}\n" if author else ""
    text = atom_text(
        atom_id, title=title, type_=kind, body=body, created=created.isoformat(),
        extra=who + extra,
    )  # fmt: skip
    write_atom(repo, path, text)


def _usage(today: dt.date) -> dict[str, str]:
    """usage/<member>.json as `memkit usage export --write` writes them."""
    used = {
        "bob": {"payments-api-deploy": 14, "redis-maxmemory": 9, "secrets-in-vault": 6,
                "incident-severity": 5, "cache-ttl-zh": 4, "git-branch-names": 3},
        "carol": {"payments-api-deploy": 6, "code-review-two-approvals": 8,
                  "log-retention-zh": 7, "staging-resets-sunday": 4, "timeouts-default": 2},
    }  # fmt: skip
    out = {}
    for user, counts in used.items():
        atoms = {
            atom_id: {
                "confirmed": n,
                "contradicted": 1 if atom_id == "redis-maxmemory" else 0,
                "injected": n + 2,
                "first": (today - dt.timedelta(days=40)).isoformat(),
                "last": (today - dt.timedelta(days=2)).isoformat(),
            }
            for atom_id, n in counts.items()
        }
        clone = {
            "exported": today.isoformat(),
            "since": (today - dt.timedelta(days=45)).isoformat(),
            "atoms": atoms,
        }
        doc = {"memkit_usage": 1, "user": user, "clones": {"laptop": clone}}
        out[f"usage/{user}.json"] = json.dumps(doc, indent=1) + "\n"
    return out


def big_memory(path: Path, today: dt.date | None = None) -> Path:
    """The memory, committed on its days up to `today`, audited."""
    today = today or dt.date.today()

    def ago(days: int) -> dt.date:
        return today - dt.timedelta(days=days)

    repo = make_memory_repo(path)

    # Two months ago: the service notes and the team's conventions, imported at once.
    for item in [*_service_atoms(), *_general()]:
        imported = item[1].startswith("adr-")  # an ADR keeps the date it was written
        _write(repo, item, dt.date(2019, 3, 14) if imported else ago(60))
    _commit(repo, "alice", ago(60), "import the team's notes into memkit")
    # Weeks of small additions, a review, an archive sweep.
    for item, created, who in LATER:
        _write(repo, item, ago(created), who)
    _commit(repo, "bob", ago(25), "buildkit; propose canary deploys")
    _move(repo, "shared/_pending/canary-deploys.md", "shared/")
    _commit(repo, "alice", ago(21), "review: approve canary-deploys")
    for item in ARCHIVED_ELSEWHERE:
        _write(repo, item, ago(40), "bob")
    _commit(repo, "bob", ago(14), "archive what expired")

    # This week.
    _write(repo, PNPM, ago(4), "alice")
    fixed = memkit("validate", "--fix", cwd=repo)  # marks the npm decision superseded
    npm = (repo / "shared/frontend-package-manager.md").read_text(encoding="utf-8")
    assert "superseded_by" in npm, fixed.stdout + fixed.stderr
    _commit(repo, "alice", ago(4), "frontend: pnpm 9 replaces npm")
    _write(repo, TRACING, ago(10), "carol")
    _commit(repo, "carol", ago(10), "propose OpenTelemetry tracing")
    _move(repo, "shared/_pending/tracing-opentelemetry.md", "shared/")
    _commit(repo, "alice", ago(3), "review: approve tracing-opentelemetry")
    # A change to an approved decision, proposed and approved as `memkit review approve`
    # writes it: the proposal leaves review and its text is written over the decision.
    _write(repo, TWO_APPROVALS, ago(5), "bob")
    _commit(repo, "bob", ago(5), "propose: hotfixes need the second approval in a day")
    proposal = repo / TWO_APPROVALS[0]
    revised = proposal.read_text(encoding="utf-8").replace(TWO_APPROVALS[1], REVISES, 1)
    proposal.unlink()
    write_atom(repo, f"shared/{REVISES}.md", revised)
    _commit(repo, "alice", ago(2), f"review: approve {TWO_APPROVALS[1]}")
    _write(repo, REGRESSION_ZH, ago(2), "ming")
    _write(repo, GRPC, ago(2), "bob")
    _commit(repo, "ming", ago(2), "release: full regression run; gRPC deadlines")
    _edit(
        repo,
        "shared/jwt-expiry.md",
        "on every use.",
        "on every use; revoke all on password change.",
    )
    train = repo / "shared/mobile-release-train.md"
    (repo / "archive/shared").mkdir(parents=True)
    _move(repo, "shared/mobile-release-train.md", "archive/shared/")
    _edit(repo, "archive/shared/mobile-release-train.md", "---\n#",
          "status: archived\narchived_reason: the apps ship weekly now\n---\n#")  # fmt: skip
    assert not train.exists()
    _commit(repo, "carol", ago(1), "jwt: revoke on password change; retire the release train")
    _write(repo, RUNNERS, ago(1), "bob")
    _commit(repo, "bob", ago(1), "propose self-hosted CI runners")
    # A teammate's commit past the hooks: it contradicts the live Redis note.
    _write(repo, REDIS_4GB, today, "bob")
    for relpath, text in _usage(today).items():
        write_atom(repo, relpath, text)
    _commit(repo, "bob", today, "redis is 4gb now; usage exports")

    audited = memkit("audit", "--all", cwd=repo)
    assert CONFLICT[0] in audited.stdout, audited.stdout + audited.stderr
    # Alice (management) then edits the older Redis note through the hooks: the write gate
    # warns (MK105) and records the pair the other way round (`.memkit/audit/written.json`).
    _edit(repo, "shared/redis-maxmemory.md", "need their own cluster.",
          "need their own cluster; ask #platform first.")  # fmt: skip
    _commit(repo, "alice", today, "redis: ask platform first", verify=True)
    written = json.loads((repo / ".memkit/audit/written.json").read_text(encoding="utf-8"))
    assert [(i["incoming"], i["other"]) for i in written["unresolved"]] == [CONFLICT[::-1]]
    shutil.rmtree(repo / ".memkit" / "models", ignore_errors=True)  # 70 MB, derived
    return repo


def _move(repo: Path, source: str, folder: str) -> None:
    subprocess.run(["git", "mv", source, folder], cwd=repo, check=True)


def _edit(repo: Path, relpath: str, old: str, new: str) -> None:
    path = repo / relpath
    text = path.read_text(encoding="utf-8")
    assert old in text, (relpath, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


LATER: list[tuple[Item, int, str]] = [  # (atom, days ago it was written, who)
    (("shared/use-buildkit.md", "use-buildkit", "decision", "Images are built with BuildKit",
      "- `DOCKER_BUILDKIT=1` everywhere; cache mounts for package managers.",
      "triggers: [docker, buildkit]\n"), 30, "bob"),
    (("shared/_pending/canary-deploys.md", "canary-deploys", "decision",
      "Production deploys go out as canaries first",
      "- 5 % of traffic for 15 minutes, then the rest if the error rate holds.",
      "triggers: [canary, deploy]\n"), 25, "carol"),
]  # fmt: skip
# An expired session summary and a person's atom, archived where they were (never shown).
ARCHIVED_ELSEWHERE: list[Item] = [
    ("archive/episodic/session-2026-bob.md", "session-2026-bob", "fact",
     "Session summary of Bob's afternoon", "- Bob looked at the deploy scripts.",
     "status: archived\nexpires: 2026-01-01\narchived_reason: expired\n"),
    ("archive/personal/bob/bob-salary.md", "bob-salary", "preference", "Bob's salary notes",
     "- Ask for a raise in June.", "status: archived\narchived_reason: old\n"),
]  # fmt: skip
PNPM: Item = (
    "shared/frontend-pnpm.md", "frontend-pnpm", "decision",
    "Frontend packages are installed with pnpm 9",
    "- Use `pnpm install --frozen-lockfile` in CI; commit `pnpm-lock.yaml`, delete "
    "`package-lock.json`.",
    "triggers: [pnpm, frontend, package manager]\nsupersedes: [frontend-package-manager]\n",
)  # fmt: skip
TRACING: Item = (
    "shared/_pending/tracing-opentelemetry.md", "tracing-opentelemetry", "decision",
    "Tracing goes through OpenTelemetry",
    "- Services export OTLP to the collector at `otel-collector:4317`; sample 10 % in "
    "production.", "triggers: [tracing, opentelemetry]\n",
)  # fmt: skip
REGRESSION_ZH: Item = (
    "shared/regression-before-release-zh.md", "regression-before-release-zh", "decision",
    "發布前必須跑完整回歸測試", "- 每次正式發布前都要跑完整的回歸測試，`make regression` "
    "全部通過才能發布。", "triggers: [發布, 回歸測試]\n",
)  # fmt: skip
GRPC: Item = (
    "roles/programmer/grpc-deadline-pitfall.md", "grpc-deadline-pitfall", "pitfall",
    "gRPC calls without a deadline hang forever",
    "- Always pass a deadline (`context.WithTimeout`, 2 s by default); the server never "
    "closes an idle call.", "triggers: [grpc, deadline]\n",
)  # fmt: skip
RUNNERS: Item = (
    f"shared/_pending/{PENDING_ID}.md", PENDING_ID, "decision", "CI runs on self-hosted runners",
    "- Move every CI job to the self-hosted runner pool `ci-large` to cut queue times.",
    "triggers: [ci runners]\n",
)  # fmt: skip
REDIS_4GB: Item = (
    "shared/redis-maxmemory-4gb.md", CONFLICT[0], "fact",
    "Redis maxmemory is 4gb on the shared cluster",
    "- The shared Redis cluster runs with `maxmemory 4gb` and `allkeys-lru`.",
    "triggers: [redis, maxmemory]\n",
)  # fmt: skip
TWO_APPROVALS: Item = (
    f"shared/_pending/{REVISES}-2.md", f"{REVISES}-2", "decision",
    "Two approvals before merging to main",
    "- Every pull request needs two approvals, one from the owning team.\n"
    "- Hotfixes may merge with one approval; the second must follow within a working day.",
    "triggers: [review, pull request]\n",
)  # fmt: skip
