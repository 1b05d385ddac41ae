"""A 16-atom team memory and twelve new atoms unrelated to any of it, as a new team writes them
(issue 27): the memory the "very close" warning and the contradiction checks are tried on."""

from __future__ import annotations

# Each: id, title, body.
MEMORY: tuple[tuple[str, str, str], ...] = (
    (
        "use-pnpm",
        "Use pnpm",
        "Always install JavaScript dependencies with pnpm, never npm or yarn; the lockfile is "
        "pnpm-lock.yaml.",
    ),
    (
        "ws-heartbeat",
        "WebSocket connections need a 30 s heartbeat",
        "The load balancer drops idle connections after 60 s; send a ping every 30 s.",
    ),
    (
        "kenji-leads-payments",
        "Kenji is the tech lead of the payments team",
        "Kenji is the tech lead of the payments team; ask him before changing refund logic.",
    ),
    (
        "deploy-with-argo",
        "Deploy with Argo CD",
        "Services are deployed to production with Argo CD from the release branch.",
    ),
    (
        "api-statement-timeout",
        "API database statement timeout",
        "The API's PostgreSQL role has statement_timeout set to 5s so a slow query cannot hold a "
        "connection.",
    ),
    (
        "migrations-before-deploy",
        "Run migrations before deploy",
        "Run make migrate before every API deploy; the service crashes on a missing table.",
    ),
    (
        "no-env-files",
        "Never commit .env files",
        "Never commit .env files; CI reads secrets from Vault at deploy time.",
    ),
    (
        "utc-timestamps",
        "Timestamps in UTC",
        "Store every timestamp as UTC with an explicit offset; convert to local time only in the "
        "UI.",
    ),
    (
        "redis-session-ttl",
        "Session keys expire",
        "Every Redis session key gets a TTL of 24 h; keys without a TTL fill the cache.",
    ),
    (
        "pr-two-approvals",
        "Two approvals on main",
        "Pull requests to main need two approvals, one from a code owner.",
    ),
    (
        "feature-flags-unleash",
        "Feature flags in Unleash",
        "Feature flags are served by Unleash; remove a flag within two sprints of full rollout.",
    ),
    (
        "staging-refresh",
        "Staging data refresh",
        "The staging database is refreshed from an anonymised production snapshot every Sunday "
        "night.",
    ),
    (
        "log-retention",
        "Log retention",
        "Application logs are kept in Loki for 30 days; audit logs go to S3 for a year.",
    ),
    (
        "node-version",
        "Node version",
        "The web app builds with Node 20; Node 18 fails on the new test runner.",
    ),
    (
        "oncall-handover",
        "On-call handover",
        "On-call hands over on Mondays at 10:00 with a short written summary in the incident "
        "channel.",
    ),
    (
        "image-scanning",
        "Container image scanning",
        "Every container image is scanned with Trivy in CI; a critical finding fails the build.",
    ),
)

# New atoms about things the memory does not mention (each names a subject of its own).
UNRELATED: tuple[tuple[str, str], ...] = (
    (
        "grpc-deadline",
        "Every gRPC call from the gateway to the inventory service sets a deadline of 800 ms.",
    ),
    (
        "s3-lifecycle",
        "The uploads bucket has an S3 lifecycle rule that moves objects to Glacier after 90 days.",
    ),
    (
        "amara-leads-search",
        "Amara is the tech lead of the search team; ask her before changing the ranking service.",
    ),
    (
        "terraform-state",
        "Terraform state lives in a locked S3 backend; never run terraform apply from a laptop.",
    ),
    (
        "orders-statement-timeout",
        "The orders service sets statement_timeout to 30s for its batch jobs.",
    ),
    (
        "design-review",
        "Design reviews happen on Thursdays; post the doc in the review channel a day before.",
    ),
    (
        "kafka-partitions",
        "The events topic in Kafka has 12 partitions; consumers in one group never exceed that.",
    ),
    (
        "css-modules",
        "Components style themselves with CSS modules; global styles live only in app.css.",
    ),
    ("pagination", "List endpoints paginate with an opaque cursor, never with page numbers."),
    (
        "dns-ttl",
        "Public DNS records use a TTL of 300 seconds so that a failover propagates quickly.",
    ),
    ("mobile-release", "The iOS app is released every second Wednesday after QA signs off."),
    ("python-typing", "New Python modules pass mypy --strict before they are merged."),
)
