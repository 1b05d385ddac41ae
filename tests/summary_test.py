"""MEMORY.md, generated from the index by `memkit summary`."""

from __future__ import annotations

from pathlib import Path

from memkit.checks.validate import validate
from memkit.summary import render_summary
from tests.helpers import atom_text, commit_and_index, make_memory_repo, memkit, write_atom


def test_a_new_repository_s_memory_md_is_already_current(tmp_path: Path) -> None:
    template = Path(__file__).parents[1] / "memory_template" / "MEMORY.md"
    assert template.read_text(encoding="utf-8") == render_summary([])
    repo = make_memory_repo(tmp_path / "team")
    out = memkit("summary", "--check", cwd=repo)
    assert (out.returncode, out.stdout.strip()) == (0, "memkit summary: MEMORY.md is up to date")


def test_summary_counts_shared_and_role_atoms_and_names_top_triggers(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team")
    write_atom(repo, "shared/a.md", atom_text("a", type_="pitfall", extra="triggers: [kafka]\n"))
    write_atom(repo, "shared/b.md", atom_text("b", extra="triggers: [Kafka, redis]\n"))
    write_atom(repo, "roles/art/c.md", atom_text("c", extra="triggers: [texture]\n"))
    write_atom(repo, "shared/_pending/d.md", atom_text("d", type_="decision"))
    write_atom(repo, "shared/e.md", atom_text("e", extra="status: superseded\n"))
    write_atom(repo, "personal/alice/secret-plan.md", atom_text("secret-plan"))
    write_atom(repo, "episodic/s1.md", atom_text("s1", extra="triggers: [standup]\n"))
    commit_and_index(repo)
    stale = memkit("summary", "--check", cwd=repo)
    assert stale.returncode == 1
    assert memkit("summary", cwd=repo).returncode == 0
    text = (repo / "MEMORY.md").read_text(encoding="utf-8")
    assert "3 active atoms (2 fact, 1 pitfall)" in text
    assert "- roles/art: 1\n- shared: 2\n" in text
    assert "- waiting for review: 1" in text
    assert "- superseded (kept, not recalled): 1" in text
    assert "Top triggers: kafka, redis, texture" in text
    # Committed for the whole team: one person's private atoms and session notes stay out.
    assert "personal" not in text.split("Folders:")[1].split("\n\n", 1)[1]
    assert "standup" not in text
    assert memkit("summary", "--check", cwd=repo).returncode == 0
    assert validate(repo, ["MEMORY.md"]) == []


def test_summary_fits_the_line_limit_with_many_scopes() -> None:
    atoms = [
        {
            "scope": f"role:team-{i}",
            "status": "active",
            "pending": False,
            "type": "fact",
            "triggers": [f"t{i}"],
        }
        for i in range(60)
    ]
    text = render_summary(atoms, max_lines=30)
    lines = text.splitlines()
    assert len(lines) == 30
    assert lines[-1].startswith("Top triggers: ")
    assert any(line.startswith("- other scopes: ") for line in lines)
    total = sum(int(line.rsplit(": ", 1)[1]) for line in lines if line.startswith("- "))
    assert total == 60
