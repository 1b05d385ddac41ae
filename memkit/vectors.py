"""Vectors of atoms for the gate and the audit: one place that decides where they come from."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from memkit.gate.text import plain_text

if TYPE_CHECKING:
    import numpy as np

    from memkit.atom import Atom


def atom_text(atom: Atom) -> str:
    return plain_text(atom.title, atom.body)


def atom_vectors(root: Path, atoms: Sequence[Atom], model: str = "default") -> np.ndarray:
    """L2-normalised vectors, one row per atom, in order."""
    import numpy as np  # noqa: PLC0415

    from memkit.embedding import load_encoder  # noqa: PLC0415

    if not atoms:
        return np.zeros((0, 1), dtype=np.float32)
    encoder = load_encoder(model, cache_dir=root / ".memkit" / "models")
    return np.asarray(encoder.encode([atom_text(a) for a in atoms]), dtype=np.float32)
