"""What a pull prints about the atoms it brought (issue 40): a summary on the terminal, the
whole report in a file. A pull of 5,000 atoms printed 36,311 lines (4.3 MB) after `git pull`.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers import atom_text, git, join_clone, make_memory_repo, write_atom

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
