""" "May be stale": what the last drift check (`memkit drift`, docs/drift.md) found against an
atom, said in one line beside it wherever a hook serves it, and ranked lower.

The verdicts are the memory clone's `.memkit/drift.json` (`memkit.drift.stored`), read once
per change of that file (kept on the reader, `IndexReader.memo`). An atom edited since it
was checked is not called stale on old evidence: its file's stamp must be the one checked.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from memkit.drift.stored import STORED, Stale, hook_notes, note_line

STALE_PENALTY = 0.3  # off a candidate's score: below a fresh atom as relevant, still served


def _notes(reader: Any) -> dict[str, Stale]:
    root = Path(reader.root)
    try:
        st = os.stat(root / STORED)  # noqa: PTH116
    except OSError:
        return {}
    key = (st.st_mtime_ns, st.st_size)
    memo = reader.memo.get("drift")
    if memo is not None and memo[0] == key:
        notes: dict[str, Stale] = memo[1]
        return notes
    notes = hook_notes(root)
    reader.memo["drift"] = (key, notes)
    return notes


def stale_line(reader: Any, entry: dict[str, Any]) -> str:
    """ "may be stale: `max_retries` is 8 in `config/worker.yaml` now", or ""."""
    found = _notes(reader).get(str(entry["id"]))
    if found is None or found.path != entry["path"] or not found.current(Path(reader.root)):
        return ""
    return note_line(found)
