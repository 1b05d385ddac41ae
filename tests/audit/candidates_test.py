"""The audit's candidates are bounded per atom, whatever a trigger is shared by; the saved
report holds what needs someone, not every `extends` pair."""

from __future__ import annotations

import json
from pathlib import Path

from memkit.atom.read import read_atom
from memkit.audit.candidates import AuditSettings, find
from memkit.index import open_index
from tests.helpers import atom_text, commit_and_index, make_memory_repo, memkit, write_atom

WORDS = [f"{a}{b}" for a in ("alpha", "bravo", "charlie", "delta", "echo") for b in "klmnpqrs"]


def test_candidates_are_bounded_per_atom_and_say_where_they_came_from(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team", hooks=False)
    for i in range(40):
        write_atom(
            repo,
            f"shared/svc-{i:02d}.md",
            atom_text(
                f"svc-{i:02d}",
                title="Deploy cadence",
                body=f"- The {WORDS[i]} service is deployed by the team with care.",
                extra="triggers: [team]\n",
            ),
        )
    commit_and_index(repo)
    reader = open_index(repo)
    atoms = [a for i in range(40) if (a := read_atom(repo, f"shared/svc-{i:02d}.md").atom)]
    assert len(atoms) == 40
    settings = AuditSettings(neighbours=2, bm25=2, trigger_limit=3)
    found = find(reader, atoms, settings)
    assert all(0 < len(c) <= 7 for c in found)
    sources = {s for c in found for cand in c.values() for s in cand.sources}
    assert sources == {"vector", "bm25", "trigger"}
    assert all(atom.path not in c for atom, c in zip(atoms, found, strict=True))

    result = memkit("audit", "--all", cwd=repo)
    assert result.returncode in (0, 1), result.stderr
    report = json.loads((repo / ".memkit/audit/last.json").read_text(encoding="utf-8"))
    listed = report["unresolved"] + report["resolved"]
    assert sum(report["counts"].values()) >= len(listed) > 0
    assert all(p["kind"] in ("contradicts", "duplicate") for p in listed)
