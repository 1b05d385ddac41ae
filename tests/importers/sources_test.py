"""memkit import: CLAUDE.md and .claude/rules, Cursor rules, ADRs, into a real memory repo."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import NotRequired, TypedDict

from tests.helpers import atom_text, commit_and_index, git, make_memory_repo, memkit, write_atom

CLAUDE_MD = """\
# Payments service

<!-- TODO(ana): move the deploy notes elsewhere. Never import this comment. -->

## Testing

- Run `pytest -x tests/payments` before every push; the full suite takes 20 minutes in CI.
- Never mock Postgres in integration tests: use the `pg_container` fixture from tests/conftest.py.
  It starts postgres:16.2 once per session.
  ```bash
  # this line is code, not a heading
  docker compose up -d pg
  ```

## Release

1. Bump the version in `pyproject.toml` with `make bump`.
2. Tag the commit `vX.Y.Z` and push the tag.
3. Run `./deploy.sh production` from the release branch.

| environment | URL |
|---|---|
| staging | https://staging.payments.internal:8443 |
"""

RULES_API = """\
---
description: Handlers of the public REST API
paths:
  - "src/api/**"
---
Every handler in src/api/ validates its request body with the pydantic model of the route
and returns 422 with the field errors; never return 500 for bad input.
"""


class OutcomeJSON(TypedDict):
    """One candidate's outcome in `memkit import --json` (memkit.importers.run.Outcome)."""

    source: str
    action: str
    reason: NotRequired[str]
    message: NotRequired[str]
    path: NotRequired[str]
    id: NotRequired[str]
    title: NotRequired[str]
    type: NotRequired[str]
    notes: NotRequired[list[str]]
    warnings: NotRequired[list[str]]


class ImportJSON(TypedDict):
    """`memkit import --json` (memkit.importers.run.ImportReport.as_json)."""

    format: str
    dry_run: bool
    files: int
    candidates: int
    written: int
    for_review: int
    replacing: int
    refused: dict[str, int]
    skipped: dict[str, int]
    unimported: list[dict[str, str]]
    no_longer_in_file: list[dict[str, str]]
    seconds: float
    outcomes: list[OutcomeJSON]


def source_project(tmp_path: Path, files: Mapping[str, str | bytes]) -> Path:
    """A code project (its own git repository, as users have) holding `files`."""
    project = tmp_path / "app"
    project.mkdir(parents=True)
    git(project, "init", "-q")
    for rel, text in files.items():
        path = project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    return project


def run_json(repo: Path, *args: str) -> ImportJSON:
    result = memkit("import", *args, "--json", cwd=repo)
    assert result.returncode == 0, result.stdout + result.stderr
    report: ImportJSON = json.loads(result.stdout)
    return report


def outcomes(report: ImportJSON) -> list[OutcomeJSON]:
    return report["outcomes"]


def frontmatter(path: Path) -> str:
    return path.read_text(encoding="utf-8").split("\n---\n", 1)[0]


def test_claude_md_becomes_one_atom_per_rule_with_its_source(
    memory_repo: Path, tmp_path: Path
) -> None:
    crlf = CLAUDE_MD.replace("\n", "\r\n")
    project = source_project(tmp_path, {"CLAUDE.md": crlf, ".claude/rules/api.md": RULES_API})
    report = run_json(memory_repo, "claude-md", str(project))
    assert report["files"] == 2
    written = {o["source"]: o for o in outcomes(report) if o["action"] == "write"}
    lines = CLAUDE_MD.split("\n")
    for where, out in written.items():
        # Provenance: the file and the line the rule starts on, as a reader finds it.
        path, line = where.rsplit(":", 1)
        assert path in ("app/CLAUDE.md", "app/.claude/rules/api.md")
        atom = (memory_repo / out["path"]).read_text(encoding="utf-8")
        source = re.search(r'^source: "(.*)"$', atom, re.M)
        assert source is not None and source.group(1).startswith(f"{where} (claude-md ")
        if path == "app/CLAUDE.md":
            first_words = lines[int(line) - 1].lstrip("-1. ").split()[:3]
            assert " ".join(first_words) in atom
    texts = {
        o["source"]: (memory_repo / o["path"]).read_text(encoding="utf-8") for o in written.values()
    }
    pytest_rule = texts["app/CLAUDE.md:7"]
    assert "Never mock" not in pytest_rule  # one rule per atom
    mock_rule = texts["app/CLAUDE.md:8"]
    assert "# this line is code, not a heading" in mock_rule  # the fence stayed whole
    assert "It starts postgres:16.2" in mock_rule
    steps = texts["app/CLAUDE.md:17"]  # numbered steps: one procedure
    assert "type: procedure" in steps and "./deploy.sh production" in steps
    api = texts["app/.claude/rules/api.md:6"]
    assert 'paths: ["src/api/**"]' in api
    assert "# Handlers of the public REST API" in api  # description → title
    everything = "\n".join(texts.values())
    assert "Never import this comment" not in everything
    assert "\r" not in everything
    check = memkit("validate", cwd=memory_repo)
    assert check.returncode == 0, check.stdout + check.stderr


def test_the_imported_atoms_pass_the_commit_hooks(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "memory")
    project = source_project(tmp_path, {"CLAUDE.md": CLAUDE_MD})
    assert memkit("import", "claude-md", str(project), cwd=repo).returncode == 0
    git(repo, "add", "-A")
    commit = git(repo, "commit", "-m", "import CLAUDE.md", check=False)
    assert commit.returncode == 0, commit.stdout + commit.stderr


def test_dry_run_writes_nothing_and_shows_what_the_real_run_does(
    memory_repo: Path, tmp_path: Path
) -> None:
    project = source_project(tmp_path, {"CLAUDE.md": CLAUDE_MD, ".claude/rules/api.md": RULES_API})
    before = git(memory_repo, "status", "--porcelain", "--untracked-files=all").stdout
    dry = run_json(memory_repo, "claude-md", str(project), "--dry-run")
    assert git(memory_repo, "status", "--porcelain", "--untracked-files=all").stdout == before
    assert dry["dry_run"] is True and dry["written"] == 4
    text = memkit("import", "claude-md", str(project), "--dry-run", cwd=memory_repo).stdout
    assert "would write: shared/" in text and "<- app/CLAUDE.md:7" in text
    real = run_json(memory_repo, "claude-md", str(project))

    def plan(report: ImportJSON) -> list[tuple[str, str, str, str]]:
        return [
            (o["source"], o["action"], o.get("path", ""), o.get("reason", ""))
            for o in outcomes(report)
        ]

    assert plan(dry) == plan(real)


def test_a_second_import_writes_nothing_new(memory_repo: Path, tmp_path: Path) -> None:
    project = source_project(tmp_path, {"CLAUDE.md": CLAUDE_MD})
    first = run_json(memory_repo, "claude-md", str(project))
    assert first["written"] == 3
    files = sorted(
        p.relative_to(memory_repo).as_posix() for p in (memory_repo / "shared").rglob("*.md")
    )
    # A person improves one imported atom before committing: importing again must not
    # bring the original back.
    improved = next(memory_repo / o["path"] for o in outcomes(first) if o["action"] == "write")
    improved.write_text(improved.read_text(encoding="utf-8") + "\nSee also the runbook.\n")
    # The file moved lines down (a new intro): the same rules, new line numbers.
    (project / "CLAUDE.md").write_text("Intro line.\n\n" + CLAUDE_MD, encoding="utf-8")
    second = run_json(memory_repo, "claude-md", str(project))
    assert second["written"] == 0
    assert second["skipped"].get("already-imported", 0) == first["written"]
    assert (
        sorted(
            p.relative_to(memory_repo).as_posix() for p in (memory_repo / "shared").rglob("*.md")
        )
        == files
    )


def test_duplicates_within_the_import_and_of_existing_atoms_are_refused(
    memory_repo: Path, tmp_path: Path
) -> None:
    rule = (
        "- Always pin the postgres image to 16.2 in docker-compose.yml; "
        "16.3 breaks the PostGIS extension.\n"
    )
    reworded = rule.replace("to 16.2", "to version 16.2")
    write_atom(
        memory_repo,
        "shared/redis-eviction.md",
        atom_text(
            "redis-eviction",
            body="Set maxmemory-policy allkeys-lru in config/redis.conf for the cache cluster; "
            "noeviction makes writes fail when memory is full.",
        ),
    )
    changed = (
        "- Set worker_count to 8 in config/queue.yaml for the billing queue; "
        "more workers deadlock the ledger.\n"
    )
    write_atom(
        memory_repo,
        "shared/billing-workers.md",
        atom_text("billing-workers", body=changed.replace("to 8", "to 4").lstrip("- ")),
    )
    commit_and_index(memory_repo)
    existing = (
        "- Set maxmemory-policy allkeys-lru in config/redis.conf for the cache cluster; "
        "noeviction makes writes fail when memory is full.\n"
    )
    project = source_project(
        tmp_path,
        {
            "CLAUDE.md": rule + existing + changed,
            "services/db/CLAUDE.md": rule,
            "services/api/CLAUDE.md": reworded,
        },
    )
    report = run_json(memory_repo, "claude-md", str(project))
    by_source = {o["source"]: o for o in outcomes(report)}
    assert by_source["app/CLAUDE.md:1"]["action"] == "write"
    assert by_source["app/services/db/CLAUDE.md:1"]["reason"] == "duplicate-in-import"
    assert "says the same as app/CLAUDE.md:1" in by_source["app/services/db/CLAUDE.md:1"]["message"]
    assert by_source["app/services/api/CLAUDE.md:1"]["reason"] == "duplicate-in-import"
    assert "similarity" in by_source["app/services/api/CLAUDE.md:1"]["message"]
    assert by_source["app/CLAUDE.md:2"]["reason"] == "MK103"  # the atom already in the repo
    assert report["refused"] == {"MK103": 1, "duplicate-in-import": 2}
    # A changed value of an existing atom is a contradiction, reported as `memkit add` does.
    contradiction = by_source["app/CLAUDE.md:3"]
    assert contradiction["action"] == "write"
    warnings = contradiction["warnings"]
    assert any(w.startswith("MK105 contradicts `billing-workers`") for w in warnings), warnings


def test_secrets_and_private_text_in_imported_files_are_refused_unprinted(
    memory_repo: Path, tmp_path: Path
) -> None:
    key = "AKIA" + "Q3EXAMPLE7KEY4ZB"
    text = (
        f"- The deploy user for the staging account uses access key {key}; "
        "rotate it every 90 days.\n"
        "- Keep the <private>my home address is 12 Elm Street</private> out of logs, "
        "always, in every service under src/.\n"
        "- Always run `make lint` before pushing; CI rejects unformatted Python files.\n"
    )
    project = source_project(tmp_path, {"CLAUDE.md": text})
    for args in (("--dry-run",), ()):
        result = memkit("import", "claude-md", str(project), *args, cwd=memory_repo)
        assert result.returncode == 0, result.stderr
        shown = result.stdout + result.stderr
        assert key not in shown and "Elm Street" not in shown
        assert "refused: app/CLAUDE.md:1: MK110" in shown
        assert "refused: app/CLAUDE.md:2: MK111" in shown
    report = run_json(memory_repo, "claude-md", str(project))
    assert key not in json.dumps(report) and "Elm Street" not in json.dumps(report)
    on_disk = "\n".join(p.read_text(encoding="utf-8") for p in memory_repo.rglob("*.md"))
    assert key not in on_disk and "Elm Street" not in on_disk
    assert "make lint" in on_disk  # the clean rule of the same file was imported


CURSORRULES = """\
You are an expert in TypeScript, Node.js and PostgreSQL, working on the billing service.

Code Style and Structure:
- Use functional components and hooks; class components are not allowed in src/ui/.
- Prefer `zod` schemas in src/schemas/ for every API payload instead of hand-written guards.

Documentation Style:

Other Rules:
"""

MDC_TS = """\
---
description: TypeScript conventions
globs: **/*.ts, src/**/*.{tsx,jsx}
alwaysApply: false
---
- Never use `any` in src/; use `unknown` and narrow it with a zod schema.
"""

MDC_ALWAYS = """\
---
description: Commit messages
globs: *.md
alwaysApply: true
---
Write commit messages in the imperative mood and reference the Jira ticket,
e.g. `BIL-142: fix rounding`.
"""


def test_cursor_rules_map_globs_and_descriptions(memory_repo: Path, tmp_path: Path) -> None:
    project = source_project(
        tmp_path,
        {
            ".cursorrules": CURSORRULES,
            ".cursor/rules/typescript.mdc": MDC_TS,
            ".cursor/rules/commits.mdc": MDC_ALWAYS,
        },
    )
    report = run_json(memory_repo, "cursor-rules", str(project))
    assert report["files"] == 3
    by_source = {o["source"]: o for o in outcomes(report)}
    ts = memory_repo / by_source["app/.cursor/rules/typescript.mdc:6"]["path"]
    assert 'paths: ["**/*.ts", "src/**/*.tsx", "src/**/*.jsx"]' in frontmatter(ts)
    assert "# TypeScript conventions" in ts.read_text(encoding="utf-8")
    commits = memory_repo / by_source["app/.cursor/rules/commits.mdc:6"]["path"]
    assert "paths:" not in frontmatter(commits)  # alwaysApply: everywhere
    hooks = memory_repo / by_source["app/.cursorrules:4"]["path"]
    assert "class components are not allowed" in hooks.read_text(encoding="utf-8")
    assert "app/.cursorrules:5" in by_source
    # Labels that introduce nothing ("Documentation Style:") are not rules.
    assert not any(":8" in s or ":10" in s for s in by_source if s.startswith("app/.cursorrules"))
    assert memkit("validate", cwd=memory_repo).returncode == 0


ADRS = {
    "docs/adr/0001-record-architecture-decisions.md": """\
# 1. Record architecture decisions

Date: 2021-03-04

## Status

Accepted

## Context

We need to record the architectural decisions made on this project.

## Decision

We will use Architecture Decision Records, as described by Michael Nygard, kept in docs/adr.

## Consequences

See Michael Nygard's article, linked above.
""",
    "docs/adr/0002-use-mysql.md": """\
# 2. Use MySQL 5.7 for the orders database

Date: 2021-04-10

## Status

Superseded by [3. Use PostgreSQL](0003-use-postgresql.md)

## Context

The orders service needs a relational store with transactions across order lines.

## Decision

We will run MySQL 5.7 on RDS for the orders database, with one read replica.
""",
    "docs/adr/0003-use-postgresql.md": """\
# 3. Use PostgreSQL 16 for the orders database

Date: 2023-09-01

## Status

Accepted

Supersedes [2. Use MySQL](0002-use-mysql.md)

## Context

MySQL 5.7 reached end of life and we need JSONB columns for order metadata.

## Decision

We will run PostgreSQL 16 on RDS for the orders database, with one read replica.
""",
    "docs/adr/0004-event-bus.md": """\
---
status: proposed
date: 2024-01-15
---
# Publish order events to Kafka

## Context and Problem Statement

Other services poll the orders API every 10 s to learn about new orders.

## Decision Outcome

Chosen option: publish `order.created` events to the Kafka topic `orders.v1`, because
polling costs 40% of the API's load.
""",
    "docs/adr/0005-graphql.md": """\
# 5. Expose a GraphQL gateway

* Status: rejected
* Date: 2022-06-30

## Decision

We will not add a GraphQL gateway in front of the REST APIs; the two client teams prefer REST.
""",
    "docs/adr/README.md": "# Decisions\n\n- [1. Record](0001-record-architecture-decisions.md)\n",
    "docs/adr/template.md": "# NUMBER. TITLE\n\n## Status\n\n## Context\n\n## Decision\n",
}


def adr_atoms(repo: Path, report: ImportJSON) -> dict[str, str]:
    """Record file name → the atom's text."""
    return {
        o["source"].split("/")[-1].split(":")[0]: (repo / o["path"]).read_text(encoding="utf-8")
        for o in outcomes(report)
        if o["action"] in ("write", "review")
    }


def test_adrs_map_status_date_and_supersession(memory_repo: Path, tmp_path: Path) -> None:
    project = source_project(tmp_path, ADRS)
    report = run_json(memory_repo, "adr", str(project / "docs/adr"))
    assert {u["source"].split("/")[-1] for u in report["unimported"]} == {
        "README.md",
        "template.md",
    }
    atoms = adr_atoms(memory_repo, report)
    # adr-tools' first record is about keeping records, not a decision (issue 41).
    assert len(atoms) == 4 and "0001-record-architecture-decisions.md" not in atoms
    assert report["skipped"] == {"boilerplate": 1}, report["skipped"]
    old, new = atoms["0002-use-mysql.md"], atoms["0003-use-postgresql.md"]
    assert "type: decision" in new and "created: 2023-09-01" in new
    assert "confidence: fixed" in new
    assert "# ADR 3: Use PostgreSQL 16 for the orders database" in new
    assert "status: superseded" in old
    old_id_line = re.search(r"^id: (.*)$", old, re.M)
    assert old_id_line is not None
    old_id = old_id_line.group(1)
    assert f'supersedes: ["{old_id}"]' in new
    # The decision comes first in the body, then its context.
    assert new.index("We will run PostgreSQL 16") < new.index("MySQL 5.7 reached end of life")
    madr = atoms["0004-event-bus.md"]
    assert "confidence: tentative" in madr and "created: 2024-01-15" in madr
    assert "orders.v1" in madr
    assert "status: archived" in atoms["0005-graphql.md"]  # rejected: kept, never recalled
    check = memkit("validate", cwd=memory_repo)
    assert check.returncode == 0, check.stdout + check.stderr
    # The order the records were written in lets `supersedes` name an existing atom; a
    # second run writes nothing.
    assert run_json(memory_repo, "adr", str(project / "docs/adr"))["written"] == 0


def test_imports_from_outside_management_follow_the_roles(
    memory_repo: Path, tmp_path: Path
) -> None:
    git(memory_repo, "config", "user.email", "bob@example.com")
    project = source_project(tmp_path, {k: v for k, v in ADRS.items() if "0004" in k})
    report = run_json(memory_repo, "adr", str(project / "docs/adr"))
    (out,) = outcomes(report)
    assert out["action"] == "review" and out["path"].startswith("shared/_pending/")
    assert report["for_review"] == 1
    # Bob has no role `art`: an import into its folder is refused as his commit would be.
    rules = source_project(tmp_path / "more", {"CLAUDE.md": CLAUDE_MD})
    art = run_json(memory_repo, "claude-md", str(rules), "--scope", "role:art")
    assert art["written"] == 0 and set(art["refused"]) == {"MK201"}


def test_a_new_adr_supersedes_one_imported_before(memory_repo: Path, tmp_path: Path) -> None:
    first = {k: v for k, v in ADRS.items() if "0002" in k}
    first["docs/adr/0002-use-mysql.md"] = first["docs/adr/0002-use-mysql.md"].replace(
        "Superseded by [3. Use PostgreSQL](0003-use-postgresql.md)", "Accepted"
    )
    project = source_project(tmp_path, first)
    report = run_json(memory_repo, "adr", str(project / "docs/adr"))
    (old,) = outcomes(report)
    commit_and_index(memory_repo)
    # Later the team replaces the decision: the old record's status changes, a new one comes.
    for rel in ("docs/adr/0002-use-mysql.md", "docs/adr/0003-use-postgresql.md"):
        (project / rel).write_text(ADRS[rel], encoding="utf-8")
    again = run_json(memory_repo, "adr", str(project / "docs/adr"))
    by_file = {o["source"].split("/")[-1].split(":")[0]: o for o in outcomes(again)}
    assert by_file["0002-use-mysql.md"]["reason"] == "changed-since-import"
    new = (memory_repo / by_file["0003-use-postgresql.md"]["path"]).read_text(encoding="utf-8")
    assert f'supersedes: ["{old["id"]}"]' in new
    assert memkit("validate", cwd=memory_repo).returncode == 0


def test_messy_files_import_or_say_why(memory_repo: Path, tmp_path: Path) -> None:
    latin = "- Always encode the café menu export as UTF-8 in src/export/menu.py before upload.\n"
    index_rule = "- Every foreign key column in the orders schema needs a btree index.\n"
    ruff_rule = "- Use `ruff format` on every Python file in src/.\n"
    long_fence = "## Schema\n\n```sql\n" + "".join(f"-- column {i}\n" for i in range(400)) + "```\n"
    project = source_project(
        tmp_path,
        {
            "a/CLAUDE.md": latin.encode("latin-1"),
            "b/CLAUDE.md": b"\xff\xfe"
            + "- Never log request bodies in src/api/; they carry card numbers.\r\n".encode(
                "utf-16-le"
            ),
            "c/CLAUDE.md": b"\x00\x01binary\x00",
            "d/CLAUDE.md": "",
            "e/CLAUDE.md": long_fence + "\n## Indexes\n\n" + index_rule,
            "f/.claude/rules/x.md": "---\n: : [\n---\n" + ruff_rule,
            "g/CLAUDE.md": "# Guides\n\n@docs/testing.md\n@docs/style.md\n",
        },
    )
    result = memkit("import", "claude-md", str(project), cwd=memory_repo)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert (
        "not imported: app/a/CLAUDE.md: is not UTF-8 (byte 0xe9 on line 1); pass --encoding" in out
    )
    assert "write: shared/" in out and "<- app/b/CLAUDE.md:1" in out  # UTF-16 with a BOM
    assert "not imported: app/c/CLAUDE.md: is binary" in out
    assert "not imported: app/d/CLAUDE.md: has no rules" in out
    assert "refused: app/e/CLAUDE.md:3: too-long" in out
    assert "<- app/e/CLAUDE.md:408" in out  # the rest of the long file still imports
    assert "not imported: app/f/.claude/rules/x.md: frontmatter" in out
    assert "refused: app/g/CLAUDE.md:3: reference only names another file (`@path`)" in out
    latin_file = project / "a/CLAUDE.md"
    named = memkit("import", "claude-md", str(latin_file), "--encoding", "latin-1", cwd=memory_repo)
    assert "<- app/a/CLAUDE.md:1" in named.stdout, named.stdout + named.stderr
    assert "café" in "".join(
        p.read_text(encoding="utf-8") for p in (memory_repo / "shared").glob("*.md")
    )
    # Nothing half-written: every file is a whole atom, no temporary file is left behind.
    assert memkit("validate", cwd=memory_repo).returncode == 0
    assert not list(memory_repo.rglob("*.tmp"))
    missing = memkit("import", "adr", str(tmp_path / "nowhere"), cwd=memory_repo)
    assert missing.returncode == 2 and "no such file or folder" in missing.stderr


def test_auto_memory_topic_files_and_personal_notes(memory_repo: Path, tmp_path: Path) -> None:
    memory = tmp_path / "claude-home/projects/-app/memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text("- [Feedback: no summaries](feedback_summaries.md)\n")
    (memory / "feedback_summaries.md").write_text(
        "---\nname: no trailing summaries\ndescription: Do not end replies with a summary\n"
        "type: feedback\n---\nNever end a reply with a summary of what was just done; "
        "the diff already shows it. Always stop after the last code block.\n",
        encoding="utf-8",
    )
    report = run_json(memory_repo, "claude-md", str(memory))
    (out,) = outcomes(report)
    atom = (memory_repo / out["path"]).read_text(encoding="utf-8")
    assert "type: preference" in atom and "# Do not end replies with a summary" in atom
    project = source_project(
        tmp_path, {"CLAUDE.local.md": "- My editor is vim with 2-space tabs.\n"}
    )
    skipped = run_json(memory_repo, "claude-md", str(project))
    assert skipped["unimported"][0]["reason"] == "personal"


LONG_A = (
    "We will run PostgreSQL 16 on RDS for the orders database with one read replica in each "
    "region. The orders service needs transactions across order lines, JSONB columns for "
    "metadata, and logical replication to feed the analytics warehouse. Backups are taken "
    "nightly and kept for thirty five days; point in time recovery covers the last week. Schema "
    "migrations run with Alembic from the release pipeline, never by hand, and every migration "
    "must be reversible. Connection pooling goes through PgBouncer in transaction mode, sized "
    "at twenty connections per application instance."
)
LONG_B = (
    "Front end pages are rendered on the server with Django templates and progressively "
    "enhanced with HTMX for partial updates. We avoid a single page application because the "
    "forms are long, accessibility matters more than animation, and the team is small. Static "
    "assets are built by esbuild and fingerprinted; the CDN caches them for a year. Every page "
    "must work without JavaScript, pass the axe accessibility checks in continuous "
    "integration, and keep its largest contentful paint under two seconds on a mid range "
    "phone over a slow network."
)


def test_long_unrelated_atoms_are_not_duplicates_however_close_their_vectors(
    memory_repo: Path,
) -> None:
    """Static embeddings put long texts near one mean (these two: cosine 0.94); the gate
    asks long texts to share their words before it calls them duplicates (MK103)."""
    write_atom(
        memory_repo, "shared/orders-db.md", atom_text("orders-db", type_="fact", body=LONG_A)
    )
    commit_and_index(memory_repo)
    added = memkit("add", LONG_B, "--type", "fact", "--json", cwd=memory_repo)
    assert added.returncode == 0, added.stdout + added.stderr
    outcome = json.loads(added.stdout)
    assert outcome["similar"] and outcome["similar"][0]["similarity"] >= 0.92
    assert not any("MK103" in f for f in outcome["findings"])
    copy = memkit(
        "add", LONG_A.replace("thirty five", "35"), "--dry-run", "--json", cwd=memory_repo
    )
    assert any("MK103" in f for f in json.loads(copy.stdout)["findings"])


def test_an_imported_line_never_goes_live_against_a_reviewed_decision(
    memory_repo: Path, tmp_path: Path
) -> None:
    """Issue 38: a CLAUDE.md line that changes what a reviewed decision says goes to review
    with the reason, even when management runs the import."""
    write_atom(
        memory_repo,
        "shared/package-manager.md",
        atom_text(
            "package-manager",
            title="Package manager",
            type_="decision",
            body="We decided: install JavaScript dependencies with `pnpm install`, never npm.",
        ),
    )
    git(memory_repo, "add", "-A")
    git(memory_repo, "commit", "-q", "--no-verify", "-m", "decision")
    source = tmp_path / "project"
    source.mkdir()
    (source / "CLAUDE.md").write_text(
        "# Conventions\n\n- Install JavaScript dependencies with `yarn install`, never npm.\n",
        encoding="utf-8",
    )
    done = memkit("import", "claude-md", str(source / "CLAUDE.md"), cwd=memory_repo)
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    assert "send to review: shared/_pending/" in said, said
    assert "contradicts reviewed `package-manager`: sent to review" in said, said
    assert not [p for p in (memory_repo / "shared").glob("*.md") if "yarn" in p.read_text()]
