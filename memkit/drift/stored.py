"""The last drift verdicts of a memory clone, per code project: `.memkit/drift.json`.

`memkit drift` (and its commit hook in a code project) writes it; `memkit health`, the site
and the hooks read it. Only stale atoms are kept, each with its file's stamp at the check
(modification time and size): an atom edited since is not called stale on old evidence.
Derived and local like the rest of `.memkit/`. Standard library only: the hooks read it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memkit.files import write_atomic

STORED = ".memkit/drift.json"
FORMAT = 1
HOOK_SENTENCES = 2  # of an atom's stale claims, said beside it when it is served


@dataclass(frozen=True)
class Stale:
    id: str
    path: str  # the atom file
    stamp: tuple[int, int]
    project: str
    checked: str  # when (UTC, ISO 8601)
    sentences: tuple[str, ...]  # what is stale, in words (`memkit.drift.say`)

    def current(self, root: Path) -> bool:
        """The atom file is as it was when checked."""
        try:
            st = os.stat(os.path.join(root, self.path))  # noqa: PTH116, PTH118
        except OSError:
            return False
        return (st.st_mtime_ns, st.st_size) == self.stamp


def load(root: Path) -> dict[str, Any]:
    try:
        data = json.loads((root / STORED).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return {}
    return data


def save_project(root: Path, project: str, entry: dict[str, Any]) -> None:
    """Replace one project's verdicts (`entry`: checked, commit, atoms, counts, stale)."""
    data = load(root) or {"format": FORMAT, "projects": {}}
    projects = data.setdefault("projects", {})
    projects[project] = entry
    if (root / ".memkit").is_dir():
        write_atomic(
            root / STORED, json.dumps(data, ensure_ascii=False, indent=1), durable=False, mode=0o600
        )


def stale_atoms(root: Path, data: dict[str, Any] | None = None) -> list[Stale]:
    """Every atom the last checks found stale, per project, current or not."""
    data = load(root) if data is None else data
    out: list[Stale] = []
    projects = data.get("projects")
    for project, entry in sorted(projects.items()) if isinstance(projects, dict) else ():
        stale = entry.get("stale") if isinstance(entry, dict) else None
        for atom_id, found in sorted(stale.items()) if isinstance(stale, dict) else ():
            try:
                stamp = (int(found["stamp"][0]), int(found["stamp"][1]))
                sentences = tuple(str(s["say"]) for s in found["found"])
                out.append(
                    Stale(
                        str(atom_id),
                        str(found["path"]),
                        stamp,
                        str(project),
                        str(entry.get("checked", "")),
                        sentences,
                    )
                )
            except (KeyError, TypeError, ValueError, IndexError):
                continue
    return out


def current_stale(root: Path) -> list[Stale] | None:
    """The stale atoms whose files have not changed since they were checked; None while this
    clone holds no drift check at all (nothing was checked, so "none stale" may not be said)."""
    data = load(root)
    if not data.get("projects"):
        return None
    return [s for s in stale_atoms(root, data) if s.current(root)]


def hook_notes(root: Path, project: str = "") -> dict[str, Stale]:
    """atom id -> why it may be stale, for the hooks: of the session's project when it was
    checked (`project`: the session's folder, or one above it), else of every project."""
    data = load(root)
    found = stale_atoms(root, data)
    projects = data.get("projects")
    covering = [
        p
        for p in (projects if isinstance(projects, dict) else ())
        if project and (project == p or project.startswith(p.rstrip("/") + "/"))
    ]
    if covering:
        found = [s for s in found if s.project in covering]
    out: dict[str, Stale] = {}
    for stale in found:
        if stale.id not in out:
            out[stale.id] = stale
    return out


def note_line(stale: Stale) -> str:
    return "may be stale: " + "; ".join(stale.sentences[:HOOK_SENTENCES])
