"""A same-frame contradiction found at the three moments: when it is written (pre-commit,
`memkit add`, Claude's PostToolUse), when it is pulled, and when memory is recalled (SessionStart,
and the "disagree" line when both atoms are injected, through the warm engine too)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import (
    atom_text,
    copy_made,
    git,
    make_memory_repo,
    memkit,
    run_hook,
    start_engine,
    write_atom,
)

ROLES = """| user | email | roles |
|------|-------|-------|
| alice | alice@example.com | management |
| bob | bob@example.com | programmer |
"""
ATLAS = atom_text(
    "payments-owner",
    title="Payments service owner",
    body="- The payments service is owned by team Atlas.",
    extra="triggers: [payments]\n",
)
ORION_BODY = "- The payments service is owned by team Orion."
BOB = {"GIT_AUTHOR_NAME": "Bob", "GIT_AUTHOR_EMAIL": "bob@example.com"}


def orion(*, extra: str = "", type_: str = "fact") -> str:
    return atom_text(
        "payments-owner-orion",
        title="Payments service owner",
        body=ORION_BODY,
        type_=type_,
        extra="triggers: [payments]\n" + extra,
    )


@pytest.fixture(scope="module")
def made_team(tmp_path_factory: pytest.TempPathFactory, module_home: Callable[[], Any]) -> Path:
    """Alice (management) has committed who owns the payments service."""
    tmp_path = tmp_path_factory.mktemp("team")
    with module_home():
        repo = make_memory_repo(tmp_path / "team")
        (repo / "shared/_roles.md").write_text(ROLES, encoding="utf-8")
        write_atom(repo, "personal/alice/role.md", "roles: [management]\n")
        write_atom(repo, "shared/payments-owner.md", ATLAS)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "--no-verify", "-m", "base")
    return tmp_path


@pytest.fixture
def team(made_team: Path, tmp_path: Path) -> Path:
    """A copy of what `made_team` made once for this module."""
    copy_made(made_team, tmp_path)
    return tmp_path / "team"


def commit_as(repo: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    git(repo, "add", "-A")
    return subprocess.run(
        ["git", "commit", "-m", "change"],
        cwd=repo,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        check=False,
    )


# -- write ------------------------------------------------------------------------------------


def test_pre_commit_sends_a_contradiction_from_outside_management_to_review(team: Path) -> None:
    write_atom(team, "shared/payments-owner-orion.md", orion())
    refused = commit_as(team, BOB)
    out = refused.stdout + refused.stderr
    assert refused.returncode == 1, out
    assert (
        "shared/payments-owner-orion.md:2:1: MK106 contradicts `payments-owner` "
        "(shared/payments-owner.md): different team in "
        '"The payments service is owned by team …": Orion vs Atlas' in out
    )
    assert "git mv shared/payments-owner-orion.md shared/_pending/payments-owner-orion.md" in out
    # Through review: the same atom waits in shared/_pending/.
    git(team, "mv", "shared/payments-owner-orion.md", "shared/_pending/payments-owner-orion.md")
    moved = commit_as(team, BOB)
    assert moved.returncode == 0, moved.stdout + moved.stderr


def test_supersedes_settles_it_at_commit_time(team: Path) -> None:
    write_atom(
        team, "shared/payments-owner-orion.md", orion(extra="supersedes: [payments-owner]\n")
    )
    settled = commit_as(team, BOB)
    assert settled.returncode == 0, settled.stdout + settled.stderr
    assert "MK105" not in settled.stdout + settled.stderr
    assert "MK106" not in settled.stdout + settled.stderr


def test_management_may_state_a_plain_fact_but_not_a_decision_without_review(team: Path) -> None:
    write_atom(team, "shared/payments-owner-orion.md", orion())
    warned = commit_as(team)  # Alice, management
    out = warned.stdout + warned.stderr
    assert warned.returncode == 0, out
    assert "MK105 warning: changes what `payments-owner`" in out
    git(team, "rm", "-q", "shared/payments-owner-orion.md")
    write_atom(team, "shared/payments-owner-orion.md", orion(type_="decision"))
    refused = commit_as(team)
    assert refused.returncode == 1
    assert "MK106 contradicts `payments-owner`" in refused.stdout + refused.stderr


def add_as_bob(team: Path, *args: str) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-m", "memkit", "add", *args, "--json"],
        cwd=team,
        env={**os.environ, **BOB},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    outcome: dict[str, Any] = json.loads(result.stdout)  # `memkit add --json`
    return outcome


def test_memkit_add_writes_a_contradiction_to_pending_review(team: Path) -> None:
    page = "; page them for incidents on the checkout API."
    outcome = add_as_bob(team, ORION_BODY[2:-1] + page)
    assert outcome["pending_review"] and outcome["contradicts"] == ["payments-owner"]
    path = str(outcome["path"])
    assert path.startswith("shared/_pending/") and (team / path).is_file()
    assert any("contradicts `payments-owner`" in f for f in outcome["findings"])

    settled = add_as_bob(
        team,
        "The payments service is now owned by team Vega" + page,
        "--supersedes",
        "payments-owner",
    )
    path = str(settled["path"])
    assert path.startswith("shared/") and not settled["pending_review"], settled
    assert 'supersedes: ["payments-owner"]' in (team / path).read_text(encoding="utf-8")


def test_post_tool_use_moves_a_contradicting_draft_to_review(team: Path) -> None:
    draft = write_atom(team, "shared/payments-owner-orion.md", orion())
    payload = {
        "session_id": "s",
        "cwd": str(team),
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(draft)},
    }
    env = {**os.environ, **BOB}
    result = subprocess.run(
        [sys.executable, "-m", "memkit", "hook", "post-tool-use"],
        input=json.dumps(payload),
        cwd=team,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0
    answer = json.loads(result.stdout)
    assert answer["decision"] == "block"
    assert "moved shared/payments-owner-orion.md to shared/_pending/" in answer["reason"]
    assert "contradicts `payments-owner`" in answer["reason"]
    assert not draft.exists()
    assert (team / "shared/_pending/payments-owner-orion.md").read_text() == orion()


# -- pull -------------------------------------------------------------------------------------

WORKSHOP = atom_text(
    "onboarding-workshop",
    title="Onboarding workshop",
    body="- Priya and Tom ran the onboarding workshop in March.",
    extra="triggers: [onboarding]\n",
)
WORKSHOP_NEW = atom_text(
    "onboarding-workshop-hosts",
    title="Onboarding workshop hosts",
    body="- Li Wei and Tom ran the onboarding workshop in March.",
    extra="triggers: [onboarding]\n",
)


@pytest.fixture(scope="module")
def made_pulled(tmp_path_factory: pytest.TempPathFactory, module_home: Callable[[], Any]) -> Path:
    """Bob's clone has pulled Alice's same-frame update (committed with --no-verify)."""
    tmp_path = tmp_path_factory.mktemp("pulled")
    with module_home():
        alice = make_memory_repo(tmp_path / "alice")
        write_atom(alice, "shared/onboarding-workshop.md", WORKSHOP)
        git(alice, "add", "-A")
        git(alice, "commit", "-q", "-m", "workshop")
        bob = tmp_path / "bob"
        git(tmp_path, "clone", "--quiet", str(alice), str(bob))
        git(bob, "config", "user.email", "bob@example.com")
        assert memkit("init", "--join", cwd=bob).returncode == 0
        write_atom(alice, "shared/onboarding-workshop-hosts.md", WORKSHOP_NEW)
        git(alice, "add", "-A")
        git(alice, "commit", "-q", "--no-verify", "-m", "hosts")
        pull = git(bob, "pull", "--no-rebase", "--quiet", "origin", "main", check=False)
        out = pull.stdout + pull.stderr
        assert pull.returncode == 0, out
        assert "memkit audit: 1 unresolved contradiction(s)" in out
        assert (
            "CONTRADICTS shared/onboarding-workshop-hosts.md <-> shared/onboarding-workshop.md: "
            'different person in "… and Tom ran the onboarding workshop in March": Li Wei vs Priya'
        ) in out
    return tmp_path


@pytest.fixture
def pulled(made_pulled: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of what `made_pulled` made once for this module."""
    copy_made(made_pulled, tmp_path)
    return tmp_path / "alice", tmp_path / "bob"


def test_a_pulled_same_frame_update_is_reported(pulled: tuple[Path, Path]) -> None:
    _, bob = pulled
    report = json.loads((bob / ".memkit/audit/last.json").read_text(encoding="utf-8"))
    assert [(r["incoming"], r["other"]) for r in report["unresolved"]] == [
        ("onboarding-workshop-hosts", "onboarding-workshop")
    ]
    # A later pull that brings nothing new keeps the known conflict.
    again = memkit("audit", "--hook", "--from", "HEAD", "--to", "HEAD", cwd=bob)
    assert again.returncode == 0
    report = json.loads((bob / ".memkit/audit/last.json").read_text(encoding="utf-8"))
    assert len(report["unresolved"]) == 1


# -- recall -----------------------------------------------------------------------------------

PROMPT = {"session_id": "s1", "prompt": "who ran the onboarding workshop in March?"}


def settle(bob: Path) -> None:
    path = bob / "shared/onboarding-workshop-hosts.md"
    path.write_text(
        path.read_text(encoding="utf-8").replace(
            "created:", "supersedes: [onboarding-workshop]\ncreated:"
        ),
        encoding="utf-8",
    )


def session_start(bob: Path, warm: bool) -> str:
    payload: dict[str, object] = {"session_id": "s1", "cwd": str(bob), "source": "startup"}
    if warm:
        return run_hook("session-start", payload, bob, engine=True).stdout
    return memkit("hook", "session-start", cwd=bob, stdin=json.dumps(payload)).stdout


def prompt(bob: Path, warm: bool, session: str) -> str:
    payload: dict[str, object] = {**PROMPT, "cwd": str(bob), "session_id": session}
    if warm:
        return run_hook("user-prompt-submit", payload, bob, engine=True).stdout
    return memkit("hook", "user-prompt-submit", cwd=bob, stdin=json.dumps(payload)).stdout


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm-engine"])
def test_recall_says_they_disagree_until_it_is_settled(
    pulled: tuple[Path, Path], warm: bool
) -> None:
    _, bob = pulled
    engine = start_engine(bob) if warm else None
    try:
        start = session_start(bob, warm)
        assert "Unresolved contradicts: onboarding-workshop-hosts vs onboarding-workshop" in start
        first = json.loads(prompt(bob, warm, "s1"))["hookSpecificOutput"]["additionalContext"]
        assert "## onboarding-workshop " in first and "## onboarding-workshop-hosts " in first
        line = "memkit: onboarding-workshop-hosts and onboarding-workshop disagree"
        assert line in first
        assert first.count("disagree") == 1

        settle(bob)  # an uncommitted edit: the files as they are now decide
        assert "Unresolved" not in session_start(bob, warm)
        if warm:
            memkit("index", cwd=bob)
        later = prompt(bob, warm, "s2")
        assert "disagree" not in later
    finally:
        if engine is not None:
            memkit("serve", "--stop", cwd=bob)
            engine.wait(timeout=30)
            engine.communicate()


# -- CI ---------------------------------------------------------------------------------------


def test_ci_fails_a_pull_request_that_adds_a_same_frame_contradiction(team: Path) -> None:
    git(team, "checkout", "-q", "-b", "feature")
    write_atom(team, "shared/payments-owner-orion.md", orion())
    git(team, "add", "-A")
    git(team, "commit", "-q", "--no-verify", "-m", "orion")  # what reaches the forge

    def ci() -> subprocess.CompletedProcess[str]:
        return memkit("ci", "--base", "main", "--actor", "bob", "--no-evals", cwd=team)

    failed = ci()
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert (
        "shared/payments-owner-orion.md:2:1: MK301 contradicts `payments-owner` "
        "(shared/payments-owner.md): different team" in failed.stdout
    )
    write_atom(
        team, "shared/payments-owner-orion.md", orion(extra="supersedes: [payments-owner]\n")
    )
    git(team, "add", "-A")
    git(team, "commit", "-q", "--no-verify", "-m", "supersede")
    passed = ci()
    assert passed.returncode == 0, passed.stdout + passed.stderr
