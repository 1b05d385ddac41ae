"""Vectors of atoms for the gate and the audit, and their nearest neighbours in the index.

Neighbours come from the index (refreshed first, incrementally): comparing 100 changed atoms
with 10,000 others must not parse or encode the 10,000 again.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memkit.atom.text import atom_text

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {
    "memkit.embedding.encoder",
    "memkit.embedding.usercache",
    "memkit.index",
    "memkit.index.search",
    "numpy",
}


log = logging.getLogger(__name__)

if TYPE_CHECKING:
    import numpy as np

    from memkit.atom import Atom


@dataclass(frozen=True)
class Neighbour:
    id: str
    path: str
    similarity: float
    entry: dict[str, Any]
    # How far the similarity stands above the atom's similarities to every live atom, in
    # standard deviations: static vectors put unrelated texts at 0.75–0.85, so a raw cosine
    # says little until it is read against the memory's own spread (`memkit.audit.near`).
    standing: float = 0.0


def atom_vectors(root: Path, atoms: Sequence[Atom], model: str = "default") -> np.ndarray:
    """L2-normalised vectors, one row per atom, in order."""
    import numpy as np

    from memkit.embedding import load_encoder
    from memkit.embedding.usercache import model_cache_dir

    encoder = load_encoder(model, cache_dir=model_cache_dir(root), base=root)
    if not atoms:
        return np.zeros((0, encoder.dim), dtype=np.float32)
    return np.asarray(encoder.encode([atom_text(a) for a in atoms]), dtype=np.float32)


def is_live(entry: dict[str, Any]) -> bool:
    """An atom recall would serve: active, reviewed, not archived; not a session's episodic
    summary either (a log of what one session touched, not knowledge to compare with)."""
    return (
        entry["status"] == "active"
        and not entry["pending"]
        and entry["scope"] not in ("archive", "episodic")
    )


def neighbours(
    root: Path, atoms: Sequence[Atom], *, floor: float, limit: int = 5
) -> tuple[dict[str, list[Neighbour]], Any]:
    """For each atom, the live atoms of the index at or above `floor` cosine, best first.

    Returns the neighbours by atom path and the index reader (for trigger look-ups).
    """
    import numpy as np

    from memkit.index import open_index, refresh

    try:
        refresh(root, quiet=True)
    except OSError as exc:  # a read-only or full .memkit: compare with the index there is
        log.warning("the index could not be refreshed (%s); using it as it is", exc)
    reader = open_index(root)
    out: dict[str, list[Neighbour]] = {a.path: [] for a in atoms}
    if not atoms or not reader.atoms:
        return out, reader
    vectors = reader.encoder.encode([atom_text(a) for a in atoms])
    sims = np.asarray(vectors @ np.asarray(reader.vectors).T)
    live = np.array([is_live(e) for e in reader.atoms])
    for i, atom in enumerate(atoms):
        row = np.where(live, sims[i], -1.0)
        mean, spread = _spread(sims[i], live, reader.row_of.get(atom.path))
        for j in np.argsort(-row)[: limit + 1]:
            entry = reader.atoms[j]
            if row[j] < floor or entry["path"] == atom.path or entry["id"] == atom.id:
                continue
            standing = (float(row[j]) - mean) / spread
            out[atom.path].append(
                Neighbour(entry["id"], entry["path"], float(row[j]), entry, standing)
            )
        del out[atom.path][limit:]
    return out, reader


# A memory of a handful of atoms gives no spread to speak of: never read one as narrower.
MIN_SPREAD = 0.03


def _spread(row: Any, live: Any, own: int | None) -> tuple[float, float]:
    """Mean and standard deviation of one atom's similarities to the live atoms but itself."""
    import numpy as np

    mask = live.copy()
    if own is not None:
        mask[own] = False
    values = row[mask]
    if len(values) < 2:
        return 0.0, 1.0
    return float(np.mean(values)), max(float(np.std(values)), MIN_SPREAD)
