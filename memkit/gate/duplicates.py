"""Near-duplicate detection with the embedding model.

Raw cosines of static embeddings run high (related texts 0.8+), so the thresholds are
calibrated on labelled pairs (see docs/benchmarks.md) rather than taken from the seeds.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memkit.vectors import neighbours

if TYPE_CHECKING:
    from memkit.atom import Atom

DEFAULT_DUPLICATE = 0.92
DEFAULT_NEAR = 0.80
# A static embedding is the mean of its tokens' vectors, so long texts drift towards one
# mean: unrelated 300-word decision records reach a cosine of 0.95. When either text is long
# (this many distinct words), a duplicate must also share `SHARED_WORDS` of its words.
LONG_TEXT_WORDS = 60
SHARED_WORDS = 0.5
_WORD = re.compile(r"\w+")


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


def words_agree(a: str, b: str) -> bool:
    """Whether a high cosine between `a` and `b` may be read as duplication: always for two
    short texts; with a long one, only when they share enough words."""
    wa, wb = set(_WORD.findall(a.lower())), set(_WORD.findall(b.lower()))
    if max(len(wa), len(wb)) < LONG_TEXT_WORDS:
        return True
    return len(wa & wb) >= SHARED_WORDS * len(wa | wb)


def nearest(
    candidates: Sequence[Atom], *, root: Path, floor: float = DEFAULT_NEAR, limit: int = 3
) -> dict[str, list[Match]]:
    """For each candidate, the live atoms of the repository at or above `floor`, best first."""
    found, _ = neighbours(root, candidates, floor=floor, limit=limit)
    return {path: [Match(n.id, n.path, n.similarity) for n in near] for path, near in found.items()}
