"""Open the index and say what is wrong with it: the one place that tells a missing index from
a damaged one. What to do about it is the caller's: a hook or a warm process rebuilds in the
background and goes without memory meanwhile (`memkit.recall.readers`), `memkit search`
rebuilds and waits (`memkit.commands.search`), `memkit doctor` only reports
(`memkit.localstate`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from memkit.index.lite import open_light
from memkit.index.search import IndexDamaged, IndexUnavailable, open_index

MISSING, DAMAGED = "missing", "damaged"

Heal = Callable[[Path, str, str], Any]
"""(root, MISSING or DAMAGED, what was found) -> a reader to use instead, or None."""


def open_checked(root: Path, *, deep: bool) -> tuple[Any, str, str]:
    """(reader or None, "" or MISSING or DAMAGED, what was found). `deep`: every file's
    checksum verified now (a long-lived process, once per build; bit rot too); else the light
    reader, which skips parsing the atom table (5 MB at 10,000 atoms). A reader that opened
    but found damage on the way is returned with DAMAGED: it still answers from what works."""
    try:
        reader = open_index(root, deep=True) if deep else open_light(root)
    except IndexDamaged as exc:
        return None, DAMAGED, str(exc)
    except IndexUnavailable as exc:
        return None, MISSING, str(exc)
    if reader.damage:
        return reader, DAMAGED, str(reader.damage)
    return reader, "", ""


def open_or_heal(root: Path, *, deep: bool, heal: Heal) -> tuple[Any, str]:
    """The index reader of `root` (None when there is none to use) and its problem ("" when
    none): a missing or damaged index is handed to `heal`, whose reader, when it gives one,
    is used instead."""
    reader, problem, detail = open_checked(root, deep=deep)
    if problem:
        healed = heal(root, problem, detail)
        if healed is not None:
            return healed, problem
    return reader, problem
