"""`memkit review` says what it did, in plain English."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import atom_text, git, memkit, write_atom


def test_review_says_what_it_did_in_english(heartbeat_team: Path) -> None:
    write_atom(
        heartbeat_team,
        "shared/_pending/use-mongo.md",
        atom_text("use-mongo", type_="decision", body="- Always use MongoDB 7 for logs."),
    )
    git(heartbeat_team, "add", "-A")
    git(heartbeat_team, "commit", "-q", "-m", "pending")
    rejected = memkit(
        "review", "reject", "use-mongo", "--reason", "Postgres only", cwd=heartbeat_team
    )
    assert rejected.stdout.startswith("rejected use-mongo: "), rejected.stdout
    assert "rejectd" not in rejected.stdout
