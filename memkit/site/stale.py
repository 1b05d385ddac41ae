"""Atoms the code has moved away from, for the start page: where `memkit drift` plugs in.

`memkit drift` (issue 44, "Memory that knows when it is stale") checks each live atom's
claims (paths, config values, commands, versions) against a code project. Until it lands
there is nothing to ask, and `stale_atoms` answers None: the start page then has no stale
section at all rather than one that claims "none". When drift lands, `stale_atoms` returns
what it found (an empty list meaning "checked: none stale") and the page lists each atom with
its evidence and the fix, under "Needs someone".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from memkit.config import Config


@dataclass(frozen=True)
class Stale:
    atom_id: str
    evidence: str  # what the code says now, as drift prints it ("`src/net/conn.py` is gone")
    fix: str = ""  # the command that acts on it (`memkit drift --propose`)


def stale_atoms(root: Path, config: Config) -> Sequence[Stale] | None:
    """The atoms found stale against the memory's code projects; None while memkit has no
    drift check (nothing was checked, so nothing may be said)."""
    del root, config  # what drift will read
    return None
