"""Near-duplicate detection with the embedding model.

Raw cosines of static embeddings run high (related texts 0.8+), so the thresholds are
calibrated on labelled pairs (see docs/benchmarks.md) rather than taken from the seeds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memkit.vectors import atom_vectors

if TYPE_CHECKING:
    from memkit.atom import Atom

DEFAULT_DUPLICATE = 0.92
DEFAULT_NEAR = 0.80


@dataclass(frozen=True)
class Match:
    id: str
    path: str
    similarity: float


@dataclass(frozen=True)
class DuplicateSettings:
    duplicate: float = DEFAULT_DUPLICATE
    near: float = DEFAULT_NEAR

    @classmethod
    def from_config(cls, section: Mapping[str, Any]) -> DuplicateSettings:
        dup = section.get("duplicate", DEFAULT_DUPLICATE)
        near = section.get("near_duplicate", DEFAULT_NEAR)
        return cls(
            duplicate=float(dup) if isinstance(dup, (int, float)) else DEFAULT_DUPLICATE,
            near=float(near) if isinstance(near, (int, float)) else DEFAULT_NEAR,
        )


def nearest(
    candidates: Sequence[Atom],
    existing: Sequence[Atom],
    *,
    root: Path,
    model: str = "default",
    floor: float = DEFAULT_NEAR,
    limit: int = 3,
) -> dict[str, list[Match]]:
    """For each candidate, the existing atoms at or above `floor` cosine, best first."""
    others = [a for a in existing if a.path not in {c.path for c in candidates}]
    if not candidates or not others:
        return {c.path: [] for c in candidates}
    vectors = atom_vectors(root, [*candidates, *others], model)
    cand, rest = vectors[: len(candidates)], vectors[len(candidates) :]
    sims = cand @ rest.T
    out: dict[str, list[Match]] = {}
    for i, atom in enumerate(candidates):
        order = sims[i].argsort()[::-1][:limit]
        out[atom.path] = [
            Match(others[j].id, others[j].path, float(sims[i, j]))
            for j in order
            if sims[i, j] >= floor and others[j].id != atom.id
        ]
    return out
