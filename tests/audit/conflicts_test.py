"""The conflict audit: classifier cases, and a real `git pull` of a teammate's atom."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memkit.audit.classify import CONTRADICTS, EXTENDS, classify
from tests.helpers import atom_text, copy_made, git, make_memory_repo, memkit, write_atom


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Send a WebSocket heartbeat every 30 s.", "Send a WebSocket heartbeat every 90 s."),
        ("Use PostgreSQL 16 for new services.", "New services run on PostgreSQL 15."),
        ("The config lives in config/app.yaml.", "The config lives in deploy/app.yaml."),
        ("Always use pnpm to install dependencies.", "Never use pnpm; install with npm ci."),
        ("Enable HTTP/2 on the load balancer.", "Disable HTTP/2 on the load balancer."),
        ("Feature flags are supported in staging.", "Feature flags are not supported in staging."),
        ("心跳間隔是 30 秒。", "心跳間隔是 60 秒。"),
        ("部署前必須先跑資料庫遷移。", "部署前不要跑資料庫遷移。"),
        ("合併請求一律使用 squash merge。", "合併請求禁止使用 squash merge。"),
        ("The resizer job gets a 512Mi memory limit.", "The resizer job gets a 2Gi memory limit."),
        ("縮圖 job 的記憶體上限是 512 MB。", "縮圖 job 的記憶體上限是 2 GB。"),
    ],
)
def test_contradictions(a: str, b: str) -> None:
    verdict = classify(a, b, similarity=0.85)
    assert verdict.kind == CONTRADICTS, verdict


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (
            "Send a WebSocket heartbeat every 30 s.",
            "WebSocket heartbeats also need a 5 s pong timeout.",
        ),
        (
            "Always run migrations before deploying.",
            "Migrations are in db/migrations and run with make migrate.",
        ),
        ("心跳間隔是 30 秒。", "心跳失敗時客戶端要用指數退避重新連線。"),
        # One size in two notations is one value.
        ("The resizer job gets a 1024Mi memory limit.", "The resizer job's memory limit is 1Gi."),
    ],
)
def test_extensions_are_not_contradictions(a: str, b: str) -> None:
    assert classify(a, b, similarity=0.85).kind == EXTENDS


def test_unrelated_below_the_candidate_threshold() -> None:
    verdict = classify(
        "Texture atlases are 2048 px.", "Design reviews are on Thursdays.", similarity=0.3
    )
    assert verdict.kind == "unrelated"


HEARTBEAT = "- Send a WebSocket heartbeat every 30 s; the balancer drops idle sockets at 60 s."


@pytest.fixture(scope="module")
def made_alice_and_bob(
    tmp_path_factory: pytest.TempPathFactory, module_home: Callable[[], Any]
) -> Path:
    """Alice's memory repository with the 30 s heartbeat atom, and Bob's clone of it."""
    tmp_path = tmp_path_factory.mktemp("alice_and_bob")
    with module_home():
        alice = make_memory_repo(tmp_path / "alice")
        write_atom(
            alice,
            "shared/ws-heartbeat-interval.md",
            atom_text(
                "ws-heartbeat-interval",
                title="WebSocket heartbeat",
                body=HEARTBEAT,
                extra="triggers: [websocket, heartbeat]\n",
            ),
        )
        git(alice, "add", "-A")
        git(alice, "commit", "-m", "heartbeat")
        bob = tmp_path / "bob"
        git(tmp_path, "clone", "--quiet", str(alice), str(bob))
        git(bob, "config", "user.email", "bob@example.com")
        assert memkit("init", "--join", cwd=bob).returncode == 0
    return tmp_path


@pytest.fixture
def alice_and_bob(made_alice_and_bob: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of what `made_alice_and_bob` made once for this module."""
    copy_made(made_alice_and_bob, tmp_path)
    return tmp_path / "alice", tmp_path / "bob"


def commit_contradiction(alice: Path) -> None:
    write_atom(
        alice,
        "shared/ws-heartbeat-90s.md",
        atom_text(
            "ws-heartbeat-90s",
            title="WebSocket heartbeat interval",
            body="- Always send a WebSocket heartbeat every 90 s; 30 s floods the gateway.",
            extra="triggers: [websocket, heartbeat]\n",
        ),
    )
    git(alice, "add", "-A")
    assert git(alice, "commit", "-m", "longer heartbeat", check=False).returncode == 0


def pull_reports_the_contradiction(bob: Path, how: str) -> None:
    pull = git(bob, "pull", how, "--quiet", "origin", "main", check=False)
    out = pull.stdout + pull.stderr
    assert pull.returncode == 0, out
    assert "memkit audit: 1 unresolved contradiction(s)" in out
    assert "CONTRADICTS shared/ws-heartbeat-90s.md <-> shared/ws-heartbeat-interval.md" in out


def test_a_pulled_contradiction_is_reported_and_supersedes_resolves_it(
    alice_and_bob: tuple[Path, Path],
) -> None:
    alice, bob = alice_and_bob
    commit_contradiction(alice)
    pull_reports_the_contradiction(bob, "--no-rebase")
    report = json.loads((bob / ".memkit/audit/last.json").read_text(encoding="utf-8"))
    assert [r["other"] for r in report["unresolved"]] == ["ws-heartbeat-interval"]
    assert (bob / "shared/ws-heartbeat-90s.md").is_file()  # nothing lost or edited

    (alice / "shared/ws-heartbeat-90s.md").write_text(
        (alice / "shared/ws-heartbeat-90s.md")
        .read_text(encoding="utf-8")
        .replace("triggers:", "supersedes: [ws-heartbeat-interval]\ntriggers:"),
        encoding="utf-8",
    )
    git(alice, "add", "-A")
    assert git(alice, "commit", "-m", "supersede", check=False).returncode == 0
    pull = git(bob, "pull", "--no-rebase", "--quiet", "origin", "main", check=False)
    assert pull.returncode == 0
    assert "unresolved contradiction" not in pull.stdout + pull.stderr
    again = memkit("audit", "--all", cwd=bob)
    assert again.returncode == 0, again.stdout
    assert "0 unresolved contradiction(s)" in again.stdout


def test_a_rebasing_pull_is_audited_too(alice_and_bob: tuple[Path, Path]) -> None:
    # `git pull --rebase` over local commits fires post-rewrite, not post-merge.
    alice, bob = alice_and_bob
    write_atom(
        bob,
        "shared/kafka-offsets.md",
        atom_text("kafka-offsets", body="- Commit Kafka offsets only after processing a message."),
    )
    git(bob, "add", "-A")
    assert git(bob, "commit", "-m", "bob's own atom", check=False).returncode == 0
    commit_contradiction(alice)
    pull_reports_the_contradiction(bob, "--rebase")
    assert (bob / "shared/kafka-offsets.md").is_file()
    # post-rewrite fires for an amend too, with ORIG_HEAD still the pull's: nothing came in.
    amend = git(bob, "commit", "--amend", "-m", "bob's own atom, reworded", check=False)
    assert amend.returncode == 0
    assert "memkit audit:" not in amend.stdout + amend.stderr
