"""What a pull prints about the atoms it brought (issue 40): a summary on the terminal, the
whole report in a file. A pull of 5,000 atoms printed 36,311 lines (4.3 MB) after `git pull`.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from tests.helpers import (
    atom_text,
    git,
    join_clone,
    kill_index_builds,
    make_memory_repo,
    write_atom,
)

NAMES = [
    *("billing", "search", "checkout", "inventory", "payments", "gateway", "reports"),
    *("mailer", "scheduler", "profiles", "catalog", "pricing", "ledger", "uploads"),
    *("thumbnails", "geocoder", "auth", "chat", "feeds", "metrics", "exports"),
]


def note(name: str, n: int) -> str:
    return f"- The {name} service listens on port {8100 + n}; its health check is /{name}/up."


def test_a_pull_with_many_conflicts_prints_a_summary_and_keeps_the_whole_report(
    tmp_path: Path,
) -> None:
    origin = make_memory_repo(tmp_path / "origin")
    for n, name in enumerate(NAMES):
        write_atom(origin, f"shared/{name}-port.md", atom_text(f"{name}-port", body=note(name, n)))
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "--no-verify", "-m", "ports")
    bob = tmp_path / "bob"
    join_clone(origin, bob, "bob@example.com")
    for n, name in enumerate(NAMES):  # the same notes again, under other names
        write_atom(
            origin, f"shared/{name}-listens.md", atom_text(f"{name}-listens", body=note(name, n))
        )
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "--no-verify", "-m", "ports again")

    pulled = git(bob, "pull", "--no-rebase", check=False)
    out = pulled.stdout + pulled.stderr
    assert pulled.returncode == 0, out
    pairs = [
        line for line in out.splitlines() if line.startswith(("  DUPLICATE ", "  CONTRADICTS "))
    ]
    report = (bob / ".memkit/audit/last.txt").read_text(encoding="utf-8")
    whole = [
        line for line in report.splitlines() if line.startswith(("  DUPLICATE ", "  CONTRADICTS "))
    ]
    assert len(whole) >= len(NAMES), report
    assert len(pairs) == 10, out
    assert f"and {len(whole) - 10} more unresolved pair(s): the whole report is in" in out
    assert str(bob / ".memkit/audit/last.txt") in out


def test_a_pull_of_an_atom_slow_to_check_is_not_held_by_it(tmp_path: Path) -> None:
    """Issue 40: a 64 KB atom took 156 s to pull (the post-merge refresh and audit checked it
    at length). Each step a git hook adds to the pull stops at its budget (20 s;
    MEMKIT_GIT_HOOK_BUDGET here) and says what goes on: the refresh in the background, the
    audit with a command to finish it."""
    origin = make_memory_repo(tmp_path / "origin")
    bob = tmp_path / "bob"
    join_clone(origin, bob, "bob@example.com")
    body = "- The staging password" + " " * 40_000 + "\n- It rotates monthly; see the vault.\n"
    write_atom(origin, "shared/big-note.md", atom_text("big-note", body=body))
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "--no-verify", "-m", "a note slow to check")
    start = time.monotonic()
    try:
        pulled = subprocess.run(
            ["git", "pull", "--no-rebase"],
            cwd=bob,
            env={**os.environ, "MEMKIT_GIT_HOOK_BUDGET": "3"},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        took = time.monotonic() - start
    finally:
        kill_index_builds(bob)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    assert (bob / "shared/big-note.md").is_file()
    assert took < 30, (took, pulled.stdout + pulled.stderr)
