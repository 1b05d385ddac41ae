"""The code projects a memory clone knows: where `memkit drift` looks when none is named.

A project is remembered when `memkit install` wires it to this clone, and each time
`memkit drift` checks it (from the memory with `--project`, or from the project itself, its
commit hook included). A memory kept as a folder inside a code repository knows that one
without being told. Local state: `.memkit/drift/projects.json`, paths of this machine only.
"""

from __future__ import annotations

import json
from pathlib import Path

from memkit.files import write_atomic
from memkit.git import output

KNOWN = ".memkit/drift/projects.json"


def _load(memory: Path) -> list[str]:
    try:
        data = json.loads((memory / KNOWN).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    listed = data.get("projects") if isinstance(data, dict) else None
    return [str(p) for p in listed] if isinstance(listed, list) else []


def remember(memory: Path, project: Path) -> None:
    """Add `project` (its git top folder) to what `memory`'s clone knows."""
    if not (memory / ".memkit").is_dir():
        return
    top = output(project, "rev-parse", "--show-toplevel")
    if top is None:
        return
    known = _load(memory)
    if top in known or Path(top).resolve() == memory.resolve():
        return
    try:
        write_atomic(
            memory / KNOWN,
            json.dumps({"projects": [*known, top]}, indent=1),
            durable=False,
            mode=0o600,
        )
    except OSError:
        return  # a read-only .memkit/: the next run names it again


def known_projects(memory: Path) -> list[Path]:
    """The projects this clone knows that are still there, and the code repository the
    memory lies in, when it is a folder of one."""
    found = [Path(p) for p in _load(memory) if (Path(p) / ".git").exists()]
    top = output(memory, "rev-parse", "--show-toplevel")
    if top is not None and Path(top).resolve() != memory.resolve():
        found.insert(0, Path(top))
    return list(dict.fromkeys(found))
