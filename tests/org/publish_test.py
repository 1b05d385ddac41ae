"""The organisation's memory (issue 46): three real memory repositories (English and Chinese)
published to Milvus Lite with the real CLI, searched across, with roles, republished after a
commit, with what they no longer serve removed, and nothing published that a fail-closed
filter would refuse.

Each `memkit org` command is a fresh process that imports pymilvus, opens the Lite file and
releases it (~4-6 s here): the repositories and the first publish are made once per module.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import atom_text, git, make_memory_repo, memkit, write_atom

Isolated = Callable[[], AbstractContextManager[None]]
KEY = "AKIAQWERTYUIOPASDFGH"
ROLES = """# Roles

| user | email | roles |
|------|-------|-------|
| alice | alice@example.com | management, programmer |
| carol | carol@example.com | art |
"""


def _atom(repo: Path, rel: str, atom_id: str, title: str, body: str, *extra: str) -> None:
    write_atom(repo, rel, atom_text(atom_id, title=title, body=body, extra="".join(extra)))


def _commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", message)


def payments(repo: Path) -> None:
    """English, with every kind of atom the org must not get beside two it must."""
    (repo / "shared/_roles.md").write_text(ROLES, encoding="utf-8")
    _atom(
        repo,
        "shared/refund-idempotency.md",
        "refund-idempotency",
        "Refunds need an idempotency key",
        "- Every refund call to the gateway carries an idempotency key; retries reuse it.",
        "triggers: [refund, idempotency]\n",
    )
    _atom(
        repo,
        "roles/programmer/ledger-lock-order.md",
        "ledger-lock-order",
        "Ledger rows are locked in account order",
        "- Lock ledger rows by ascending account id, or two transfers deadlock.",
    )
    _atom(
        repo,
        "shared/_pending/payout-architecture.md",
        "payout-architecture",
        "Payouts move to a queue",
        "- Payout batching moves to a queue worker (pendingmarker).",
        "type: decision\n",
    )
    _atom(
        repo,
        "personal/alice/refund-notes.md",
        "refund-notes",
        "My refund notes",
        "- personalmarker: I test refunds against the staging gateway.",
    )
    _atom(
        repo,
        "episodic/session-refunds.md",
        "session-refunds",
        "Session about refunds",
        "- episodicmarker: we looked at refund retries.",
        "expires: 2099-01-01\n",
    )
    _atom(
        repo,
        "shared/refund-timeout-old.md",
        "refund-timeout-old",
        "Refund calls time out after 10 s",
        "- supersededmarker: the refund call times out after 10 s.",
    )
    _atom(
        repo,
        "shared/refund-timeout.md",
        "refund-timeout",
        "Refund calls time out after 30 s",
        "- The refund call to the gateway times out after 30 s; the worker retries twice.",
        "supersedes: [refund-timeout-old]\n",
    )
    _atom(
        repo,
        "shared/gateway-private.md",
        "gateway-private",
        "Gateway contacts",
        "- The gateway team answers on call. <private>privatemarker the boss</private>",
    )
    _atom(
        repo,
        "shared/gateway-key.md",
        "gateway-key",
        "Gateway key",
        f"- The gateway sandbox key is {KEY} (secretmarker).",
    )
    _atom(
        repo,
        "shared/legacy-refunds.md",
        "legacy-refunds",
        "Legacy refunds",
        "- expiredmarker: refunds before 2020 went through the old gateway.",
        "expires: 2020-01-01\n",
    )
    _atom(
        repo,
        "archive/refund-cron.md",
        "refund-cron",
        "Refund cron",
        "- archivedmarker: refunds ran from cron.",
    )


def platform(repo: Path) -> None:
    _atom(
        repo,
        "shared/ws-heartbeat.md",
        "ws-heartbeat",
        "WebSocket connections need a 30 s heartbeat",
        "- The load balancer drops idle WebSocket connections after 60 s; ping every 30 s.",
        "triggers: [websocket, heartbeat]\n",
    )
    _atom(
        repo,
        "shared/k8s-memory-limits.md",
        "k8s-memory-limits",
        "Pods need memory limits",
        "- Every Kubernetes pod sets a memory limit; the scheduler evicts pods without one.",
    )


def data_zh(repo: Path) -> None:
    _atom(
        repo,
        "shared/deploy-blue-green.md",
        "deploy-blue-green",
        "部署使用藍綠切換",
        "- 生產環境部署一律使用藍綠切換腳本，先跑資料庫遷移再切換流量。",
        "triggers: [部署, 藍綠]\n",
    )
    _atom(
        repo,
        "shared/etl-retry.md",
        "etl-retry",
        "夜間 ETL 失敗要重跑",
        "- 夜間 ETL 任務失敗時，從失敗的分區重跑，不要整批重跑。",
    )


NEVER = (
    *("pendingmarker", "personalmarker", "episodicmarker", "supersededmarker"),
    *("privatemarker", "secretmarker", KEY, "expiredmarker", "archivedmarker"),
)


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory, module_home: Isolated) -> Path:
    """Three repositories and the Lite file they were first published to."""
    base = tmp_path_factory.mktemp("org")
    with module_home():
        for name, fill in (("payments", payments), ("platform", platform), ("data-zh", data_zh)):
            repo = make_memory_repo(base / name, hooks=False)
            fill(repo)
            _commit(repo, f"{name} atoms")
        done = org(base, "publish", "payments", "platform", "data-zh")
        assert done.returncode == 0, done.stderr
        assert "payments: published" in done.stdout
    return base


def org(base: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    action, *rest = args
    return memkit("org", action, "--uri", str(base / "org.db"), *rest, cwd=base, env=env)


def found(base: Path, query: str, email: str = "alice@example.com") -> list[dict[str, Any]]:
    result = org(base, "search", "--json", query, env={"GIT_AUTHOR_EMAIL": email})
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


@pytest.fixture
def here(made: Path, tmp_path: Path) -> Path:
    """A test's own copy of the repositories and the published file."""
    copy = tmp_path / "org"
    shutil.copytree(made, copy, symlinks=True)
    return copy


def test_three_repositories_are_searched_across_in_english_and_chinese(here: Path) -> None:
    hits = found(here, "how often must a websocket send a heartbeat ping")
    assert hits[0]["repo"] == "platform"
    assert hits[0]["id"] == "ws-heartbeat"
    assert hits[0]["path"] == "shared/ws-heartbeat.md"
    assert len(hits[0]["commit"]) == 40
    zh = found(here, "生產環境怎麼部署")
    assert [(h["repo"], h["id"]) for h in zh][:1] == [("data-zh", "deploy-blue-green")]
    refunds = found(here, "refund gateway idempotency key retries")
    assert refunds[0]["repo"] == "payments"
    # An unrelated question gets nothing from any team, as recall answers it locally.
    assert found(here, "what colour is the office carpet") == []
    status = org(here, "status")
    assert [line.split("\t")[:1] for line in status.stdout.splitlines()] == [
        ["data-zh"],
        ["payments"],
        ["platform"],
    ]


def test_a_role_atom_reaches_only_the_roles_members(here: Path) -> None:
    query = "ledger rows lock order deadlock"
    assert [h["id"] for h in found(here, query, "alice@example.com")][:1] == ["ledger-lock-order"]
    assert "ledger-lock-order" not in [h["id"] for h in found(here, query, "carol@example.com")]
    # No identity at all: shared atoms only.
    assert "ledger-lock-order" not in [h["id"] for h in found(here, query, "")]


def test_republish_writes_what_changed_and_removes_what_is_no_longer_served(here: Path) -> None:
    repo = here / "platform"
    again = org(here, "publish", str(repo))
    assert "platform: up to date" in again.stdout, again.stdout + again.stderr
    # One atom changed, one deleted, one superseded by a new one.
    _atom(
        repo,
        "shared/ws-heartbeat.md",
        "ws-heartbeat",
        "WebSocket connections need a 20 s heartbeat",
        "- The new balancer drops idle WebSocket connections after 40 s; ping every 20 s.",
        "triggers: [websocket, heartbeat]\n",
    )
    (repo / "shared/k8s-memory-limits.md").unlink()
    _atom(
        repo,
        "shared/gc-pauses.md",
        "gc-pauses",
        "JVM services use G1 with 200 ms pauses",
        "- Every JVM service runs G1 with a 200 ms pause goal.",
    )
    _commit(repo, "heartbeat 20 s, limits gone, gc")
    done = org(here, "publish", str(repo))
    assert done.returncode == 0, done.stderr
    assert "2 written, 1 removed, 0 unchanged" in done.stdout, done.stdout
    hits = found(here, "websocket heartbeat ping interval")
    assert hits[0]["id"] == "ws-heartbeat"
    text = org(here, "search", "websocket heartbeat ping interval").stdout
    assert "20 s heartbeat" in text and "30 s heartbeat" not in text
    assert "k8s-memory-limits" not in [h["id"] for h in found(here, "kubernetes pod memory limit")]
    # A commit that supersedes an atom takes it out of the org.
    _atom(
        repo,
        "shared/gc-zgc.md",
        "gc-zgc",
        "JVM services use ZGC",
        "- Every JVM service runs ZGC now; G1 is gone.",
        "supersedes: [gc-pauses]\n",
    )
    _commit(repo, "zgc")
    done = org(here, "publish", str(repo))
    assert "1 written, 1 removed" in done.stdout, done.stdout
    assert [h["id"] for h in found(here, "which garbage collector do JVM services use")] == [
        "gc-zgc"
    ]


def test_a_working_tree_that_differs_from_its_commit_is_not_published(here: Path) -> None:
    repo = here / "platform"
    _atom(repo, "shared/draft.md", "draft", "A draft", "- Not committed yet: draftmarker.")
    # HEAD is published already: a draft changes nothing the org serves.
    assert "up to date" in org(here, "publish", str(repo)).stdout
    (repo / "README.md").write_text("The platform team's memory.\n", encoding="utf-8")
    git(repo, "commit", "-qam", "readme", "--no-verify")
    done = org(here, "publish", str(repo))
    assert done.returncode == 1
    assert "shared/draft.md differ from" in done.stderr
    assert "draftmarker" not in json.dumps(found(here, "draftmarker draft committed"))


def _published_rows(base: Path) -> list[dict[str, Any]]:
    """Every row of the org's collection, read with pymilvus in a fresh process."""
    script = (
        "import json, sys\n"
        "from memkit.org.settings import settings_for\n"
        "from memkit.org.store import OrgStore\n"
        "with OrgStore(settings_for(sys.argv[1])) as store:\n"
        "    store.load()\n"
        "    for row in store.rows('pk != \"\"', ['*']):\n"
        "        row.pop('dense', None); row.pop('sparse', None)\n"
        "        print(json.dumps(row, ensure_ascii=False))\n"
    )
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-c", script, str(base / "org.db")],
        capture_output=True,
        text=True,
        check=False,
        cwd=base,
    )
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_the_published_collection_holds_nothing_a_fail_closed_filter_refuses(here: Path) -> None:
    """Like the index's no-leak test: every row read back, judged by rules of its own."""
    from memkit.safety.injection import is_injection
    from memkit.safety.private import PRIVATE
    from memkit.safety.secrets import find_secrets

    rows = _published_rows(here)
    assert {r["atom_id"] for r in rows} == {
        *("refund-idempotency", "ledger-lock-order", "refund-timeout"),
        *("ws-heartbeat", "k8s-memory-limits", "deploy-blue-green", "etl-retry"),
    }
    for row in rows:
        whole = json.dumps(row, ensure_ascii=False)
        assert not any(marker in whole for marker in NEVER), row
        assert row["path"].startswith(("shared/", "roles/")), row
        assert not row["path"].startswith("shared/_pending/"), row
        assert row["scope"] == "shared" or row["scope"].startswith("role:"), row
        text = f"{row['title']}\n{row['text']}"
        assert not PRIVATE.search(text)
        assert list(find_secrets(text)) == []
        assert not is_injection(text)
        # What is published is what the commit holds and `memkit validate` accepts.
        repo = here / row["repo"]
        at_commit = git(repo, "show", f"{row['commit']}:{row['path']}").stdout
        assert row["text"].strip() in at_commit
        checked = memkit("validate", row["path"], cwd=repo)
        assert checked.returncode == 0, checked.stdout
