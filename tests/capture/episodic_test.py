"""Session summaries stay personal and local (issue 29): kept under `.memkit/episodic/`, never
in `git status`; given to their author alone, through the warm engine too, where the
identity is that of the hook asking; never recalled like an atom, and never before the
team's atoms; searchable on request (`memkit search --episodes`, MCP `scope: episodic`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import (
    atom_text,
    commit_and_index,
    context,
    engine_running,
    git,
    heartbeat_repo,
    memkit,
    run_hook,
    write_atom,
)

ALICE = {"GIT_AUTHOR_NAME": "Alice", "GIT_AUTHOR_EMAIL": "alice@example.com"}
BOB = {"GIT_AUTHOR_NAME": "Bob", "GIT_AUTHOR_EMAIL": "bob@example.com"}


def warm(repo: Path, event: str, payload: dict[str, Any], who: dict[str, str]) -> str:
    """A hook as Claude Code runs it, answered by the warm engine, as `who`."""
    return context(run_hook(event, payload, repo, engine=True, env=who))


def session(repo: Path, tmp_path: Path, name: str, prompt: str, who: dict[str, str]) -> None:
    transcript = tmp_path / f"{name}.jsonl"
    entry = {"type": "user", "message": {"role": "user", "content": prompt}, "promptId": "p1"}
    transcript.write_text(json.dumps(entry) + "\n", encoding="utf-8")
    payload = {"session_id": name, "transcript_path": str(transcript)}
    warm(repo, "user-prompt-submit", {**payload, "prompt": prompt}, who)
    warm(repo, "session-end", {**payload, "reason": "other"}, who)


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Path]:
    repo = heartbeat_repo(tmp_path / "team")
    personal = atom_text(
        "alice-editor", title="Alice's editor", body="- Alice edits with Helix. MARK-ALICE"
    )
    write_atom(repo, "personal/alice-test/alice-editor.md", personal)  # gitignored: Alice's clone
    assert memkit("index", cwd=repo).returncode == 0
    yield repo
    # The hooks start a warm engine of their own: stopped here, not at its idle timeout.
    memkit("serve", "--stop", cwd=repo)


def test_two_git_identities_on_one_account_never_see_each_other_through_the_engine(
    repo: Path, tmp_path: Path
) -> None:
    with engine_running(repo, "--idle", "120", "--check-every", "0"):
        session(repo, tmp_path, "alice-1", "Plan the websocket heartbeat MARK-ASKED", ALICE)
        (summary,) = (repo / ".memkit/episodic").glob("session-*.md")
        assert "author: alice@example.com" in summary.read_text(encoding="utf-8")

        # Bob asks the same engine first: neither Alice's summary nor her personal atom.
        bob = warm(repo, "user-prompt-submit", {"session_id": "bob-1", "prompt": "hi"}, BOB)
        assert "MARK-ASKED" not in bob and summary.stem not in bob
        helix = {"session_id": "bob-1", "prompt": "which editor does alice use, helix?"}
        assert "MARK-ALICE" not in warm(repo, "user-prompt-submit", helix, BOB)

        # Alice right after him (the engine's cache is per identity) gets both.
        # Issue 43: a summary comes with a prompt about it, not with any first prompt.
        hi = warm(repo, "user-prompt-submit", {"session_id": "alice-2", "prompt": "hi"}, ALICE)
        assert summary.stem not in hi
        plan = {"session_id": "alice-2", "prompt": "back to the websocket heartbeat plan"}
        mine = warm(repo, "user-prompt-submit", plan, ALICE)
        assert summary.stem in mine and "MARK-ASKED" in mine
        helix = {"session_id": "alice-2", "prompt": "which editor does alice use, helix?"}
        assert "MARK-ALICE" in warm(repo, "user-prompt-submit", helix, ALICE)

        # Bob's own session is summarised as his, and given to him alone.
        session(repo, tmp_path, "bob-2", "Review the kafka consumer MARK-BOB", BOB)
        kafka = {"session_id": "bob-3", "prompt": "that kafka consumer review again"}
        bobs = warm(repo, "user-prompt-submit", kafka, BOB)
        assert "MARK-BOB" in bobs and "MARK-ASKED" not in bobs
        kafka = {"session_id": "alice-3", "prompt": "that kafka consumer review again"}
        alices = warm(repo, "user-prompt-submit", kafka, ALICE)
        assert "MARK-BOB" not in alices
    assert git(repo, "status", "--porcelain", "--untracked-files=all").stdout == ""


def test_a_summary_follows_the_team_s_atoms_and_old_tree_summaries_are_never_recalled(
    repo: Path, tmp_path: Path
) -> None:
    # A summary an older memkit wrote into the tree, and committed: it covers the prompt.
    old = atom_text(
        "session-20261101-old",
        title="Session: websocket heartbeat ping interval",
        body="- First prompt: websocket heartbeat ping interval MARK-OLD",
        extra="author: alice@example.com\nexpires: 2099-01-01\ntags: [episodic]\n",
    )
    write_atom(repo, "episodic/session-20261101-old.md", old)
    commit_and_index(repo)
    session(repo, tmp_path, "alice-1", "Plan the websocket heartbeat MARK-ASKED", ALICE)
    prompt = {"session_id": "alice-2", "prompt": "websocket heartbeat ping interval"}
    text = warm(repo, "user-prompt-submit", prompt, ALICE)
    assert "MARK-OLD" not in text  # recall never brings a summary
    assert "## ws-heartbeat-interval" in text and "MARK-ASKED" in text
    assert text.index("## ws-heartbeat-interval") < text.index("MARK-ASKED")


def test_your_summaries_are_searched_on_request_only(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session(repo, tmp_path, "alice-1", "Tune the kafka consumer lag alerts MARK-KAFKA", ALICE)
    session(repo, tmp_path, "bob-1", "Tune the kafka consumer for bob MARK-BOB", BOB)
    found = memkit("search", "--episodes", "kafka", "lag", "--json", cwd=repo, env=ALICE)
    assert found.returncode == 0, found.stderr
    rows = json.loads(found.stdout)["episodes"]
    assert len(rows) == 1 and "MARK-KAFKA" in rows[0]["title"]
    plain = memkit("search", "kafka consumer lag", "--json", cwd=repo, env=ALICE).stdout
    assert "MARK-KAFKA" not in plain  # not among the team's atoms
    bobs = memkit("search", "--episodes", "kafka", cwd=repo, env=BOB).stdout
    assert "MARK-BOB" in bobs and "MARK-KAFKA" not in bobs

    from memkit.mcp.lookup import mcp_search
    from memkit.recall.readers import Readers

    for key, value in ALICE.items():
        monkeypatch.setenv(key, value)
    asked = {"text": "kafka lag", "scope": "episodic", "cwd": str(repo)}
    rows = mcp_search(asked, [], Readers(warm=False))["rows"]
    assert [r["scope"] for r in rows] == ["episodic"] and "MARK-KAFKA" in rows[0]["title"]
