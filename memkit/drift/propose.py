"""`memkit drift --propose`: the new values written into the atoms, for a person to review.

Only what the code says in place of what the atom says: a changed value, a changed version
(as precise as the atom wrote it: "React 17" becomes "React 18"), a renamed path. Each edit
replaces that one token on the claim's line and nothing else, in the working tree, never
committed: `git diff` shows it, a person commits it (through the memory's checks) or
drops it. What has no replacement (a file deleted, a target removed) is listed for a person
to rewrite. An atom edited since the check is left alone.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from memkit.drift.check import CHANGED, GONE, Verdict
from memkit.drift.claims import GLOB, PATH, VALUE, VERSION
from memkit.drift.run import AtomDrift
from memkit.files import write_atomic


@dataclass(frozen=True)
class Edit:
    atom: str
    path: str  # the atom file
    line: int
    old: str
    new: str


def replacement(verdict: Verdict) -> tuple[str, str] | None:
    """(the token as the atom has it, what it becomes), or None when the code says no new
    value (deleted, removed, a value not shown)."""
    claim = verdict.claim
    if verdict.state == GONE and claim.kind == PATH and verdict.now:
        # An atom that wrote the path short (`net/conn.py` for `src/net/conn.py`) keeps it
        # as short: the same number of parts of the new path.
        depth = claim.path.strip("/").count("/") + 1
        return claim.path.strip("/"), "/".join(verdict.now.split("/")[-depth:])
    if verdict.state != CHANGED:
        return None
    if claim.kind == VALUE:
        return claim.value, verdict.now.strip()
    if claim.kind == VERSION:
        found = re.search(r"\d+(?:\.\d+)*", verdict.now)
        if found is None:
            return None
        parts = found.group(0).split(".")
        wanted = len(claim.value.split("."))
        return claim.value, ".".join(parts[:wanted])
    return None


def _replace(line: str, col: int, old: str, new: str) -> str | None:
    """`line` with the occurrence of `old` nearest after column `col` replaced."""
    pattern = re.compile(rf"(?<![\w.-]){re.escape(old)}(?![\w-]|\.\w)")
    found = list(pattern.finditer(line))
    if not found:
        return None
    after = [m for m in found if m.start() >= col - 1]
    m = after[0] if after else found[-1]
    return line[: m.start()] + new + line[m.end() :]


def propose(
    root: Path, atoms: list[AtomDrift]
) -> tuple[list[Edit], list[tuple[AtomDrift, Verdict]]]:
    """Write the edits into the working tree; returns them, and the stale claims left for a
    person (no new value, or the atom changed since the check)."""
    edits: list[Edit] = []
    left: list[tuple[AtomDrift, Verdict]] = []
    for atom in atoms:
        path = root / atom.path
        try:
            st = os.stat(path)  # noqa: PTH116
            text = path.read_text(encoding="utf-8")
        except OSError:
            left += [(atom, v) for v in atom.stale]
            continue
        if (st.st_mtime_ns, st.st_size) != atom.stamp:
            left += [(atom, v) for v in atom.stale]
            continue
        lines = text.split("\n")
        mine: list[Edit] = []
        # Right to left on a line: an edit leaves the columns of those before it as they were.
        for verdict in sorted(atom.stale, key=lambda v: (v.claim.line, -v.claim.col)):
            swap = replacement(verdict)
            claim = verdict.claim
            number = claim.line - 1
            if (
                swap is None
                or claim.kind == GLOB
                or not 0 <= number < len(lines)
                or swap[0] == swap[1]
            ):
                left.append((atom, verdict))
                continue
            changed = _replace(lines[number], claim.col, *swap)
            if changed is None:
                left.append((atom, verdict))
                continue
            lines[number] = changed
            mine.append(Edit(atom.id, atom.path, claim.line, *swap))
        if mine:
            write_atomic(path, "\n".join(lines))
            edits += mine
    return edits, left
