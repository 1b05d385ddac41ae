"""What changed since you were last here (issue 44): on a person's first session after a pull
that brought changes, SessionStart says what the team added, approved, superseded; first the
atoms that replace ones this person used. Two clones, real git, the installed hook."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memkit.recall.since import MAX_LINES
from memkit.recall.usage import usage_log
from tests.helpers import (
    atom_text,
    commit_and_index,
    context,
    git,
    join_clone,
    make_memory_repo,
    run_hook,
    write_atom,
)

HEARTBEAT = atom_text(
    "ws-heartbeat-interval",
    title="WebSocket heartbeat",
    body="- Send a WebSocket ping every 30 s.",
    extra="triggers: [websocket]\n",
)


@pytest.fixture
def team(tmp_path: Path) -> tuple[Path, Path]:
    """(origin, Bob's clone): the team's memory holds one atom Bob has used."""
    origin = make_memory_repo(tmp_path / "origin")
    write_atom(origin, "shared/ws-heartbeat-interval.md", HEARTBEAT)
    write_atom(
        origin,
        "shared/_pending/deploy-freeze.md",
        atom_text("deploy-freeze", type_="decision", body="- No deploys on Fridays after 15:00."),
    )
    commit_and_index(origin, "the team's atoms")
    bob = tmp_path / "bob"
    join_clone(origin, bob, "bob@example.com")
    return origin, bob


def start(clone: Path, session: str, source: str = "startup") -> str:
    result = run_hook("session-start", {"session_id": session, "source": source}, clone, clone)
    return context(result, "SessionStart")


def alice_commits(origin: Path, files: dict[str, str | None], message: str) -> None:
    for relpath, text in files.items():
        if text is None:
            git(origin, "rm", "-q", relpath)
        else:
            write_atom(origin, relpath, text)
    git(origin, "add", "-A")
    env_commit = ["-c", "user.email=alice@example.com", "-c", "user.name=Alice"]
    git(origin, *env_commit, "commit", "-q", "--no-verify", "-m", message)


def pull(clone: Path) -> None:
    result = git(clone, "pull", "--no-rebase", "--quiet", "origin", "HEAD", check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_first_session_after_a_pull_says_what_changed(team: tuple[Path, Path]) -> None:
    origin, bob = team
    first = start(bob, "b1")
    assert "Since your last session" not in first  # a clone's first session only notes where it is
    with usage_log(bob) as usage:
        usage.record("b1", ["ws-heartbeat-interval"])  # Bob was given it
    alice_commits(
        origin,
        {
            "shared/ws-heartbeat-45s.md": atom_text(
                "ws-heartbeat-45s",
                title="WebSocket heartbeat is 45 s",
                body="- Send a WebSocket ping every 45 s since the balancer moved to 90 s.",
                extra="triggers: [websocket]\nsupersedes: [ws-heartbeat-interval]\n",
            ),
            "shared/ws-heartbeat-interval.md": HEARTBEAT.replace(
                "created:", "status: superseded\nsuperseded_by: [ws-heartbeat-45s]\ncreated:"
            ),
            "shared/build-cache.md": atom_text(
                "build-cache",
                body="- The build cache lives in `.cache/build`; clear it after a toolchain bump.",
            ),
            "shared/_pending/deploy-freeze.md": None,
            "shared/deploy-freeze.md": atom_text(
                "deploy-freeze", type_="decision", body="- No deploys on Fridays after 15:00."
            ),
        },
        "heartbeat 45 s, build cache, deploy freeze approved",
    )
    pull(bob)
    text = start(bob, "b2")
    news = text[text.index("Since your last session") :]
    news = news[: news.index("</memkit-index>")]
    lines = news.splitlines()
    assert lines[0] == "Since your last session, 1 commit(s) by Alice changed the memory:"
    replaces = "- ws-heartbeat-45s replaces ws-heartbeat-interval (you used it): WebSocket"
    assert lines[1].startswith(f"{replaces} heartbeat is 45 s")
    assert "- approved from review: deploy-freeze" in lines
    assert "- added: build-cache" in lines
    # Said once: the next session has nothing new to say.
    assert "Since your last session" not in start(bob, "b3")


def test_nothing_is_said_of_ones_own_commits_or_when_nothing_changed(
    team: tuple[Path, Path],
) -> None:
    _origin, bob = team
    start(bob, "b1")
    assert "Since your last session" not in start(bob, "b2")
    write_atom(
        bob,
        "shared/bob-note.md",
        atom_text("bob-note", body="- The staging database is restored every night at 02:00."),
    )
    commit_and_index(bob, "bob's note")
    assert "Since your last session" not in start(bob, "b3")


def test_a_cleared_session_is_no_new_session(team: tuple[Path, Path]) -> None:
    origin, bob = team
    start(bob, "b1")
    alice_commits(
        origin,
        {
            "shared/build-cache.md": atom_text(
                "build-cache", body="- The build cache lives in `.cache/build`."
            )
        },
        "cache",
    )
    pull(bob)
    assert "Since your last session" not in start(bob, "b1", source="clear")
    assert "- added: build-cache" in start(bob, "b2")


def test_the_block_is_bounded(team: tuple[Path, Path]) -> None:
    origin, bob = team
    start(bob, "b1")
    many: dict[str, str | None] = {}
    for i in range(30):
        many[f"shared/fact-{i}.md"] = atom_text(
            f"fact-{i}", body=f"- Service number {i} answers on port {8000 + i} in staging."
        )
        many[f"roles/programmer/tip-{i}.md"] = atom_text(
            f"tip-{i}", body=f"- Tip {i}: run the linter before pushing branch {i}."
        )
    alice_commits(origin, many, "sixty atoms")
    pull(bob)
    text = start(bob, "b2")
    block = text[text.index("Since your last session") :]
    news = block[: block.index("</memkit-index>")].splitlines()
    assert len(news) <= MAX_LINES + 3
    assert any(line.startswith("- added: ") and "(+" in line for line in news)
    assert len("\n".join(news)) < 1_000


@pytest.mark.parametrize(
    "state", ['{"head": "0123456789abcdef0123456789abcdef01234567"}', "{not json", '["x"]']
)
def test_a_state_that_names_no_commit_says_nothing_and_keeps_the_index(
    team: tuple[Path, Path], state: str
) -> None:
    """A commit gone from the clone (a rebase, a gc), a damaged file: the session still gets
    its index, no news is made up, and the clone's commit is noted for next time."""
    _origin, bob = team
    (bob / ".memkit").mkdir(exist_ok=True)
    (bob / ".memkit/last-session.json").write_text(state, encoding="utf-8")
    text = start(bob, "b1")
    assert "ws-heartbeat-interval" in text and "Since your last session" not in text
    head = git(bob, "rev-parse", "HEAD").stdout.strip()
    assert json.loads((bob / ".memkit/last-session.json").read_text(encoding="utf-8")) == {
        "head": head
    }
