"""The vectors of a build: one per atom, each distinct word tokenised once.

An atom's vector is model2vec's vector of its plain text (`memkit.atom.text.atom_text`), the
same as the write gate and the audit compute for it. From BULK_CHARS of text on, the encoder
tokenises each distinct word once (`memkit.embedding.bulk`): the same token ids, the same
rows. Vectors per section were built once and never read: a long atom's sections are chosen
by weighed coverage, which measured better (docs/benchmarks.md, issue 13).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from memkit.atom.text import atom_text

if TYPE_CHECKING:
    import numpy as np

    from memkit.atom import Atom
    from memkit.embedding import Encoder

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.embedding.encoder", "numpy"}


BULK_CHARS = 400_000  # text (~200 atoms) from which the part cache pays for itself
# Below this much text (a refresh after a few edits: 10 real atoms are ~10,000 characters)
# the pieces the texts hold are looked up alone (~8 us a character) rather than building the
# model's full 64,000-piece tokenizer (~0.15-0.2 s); the same token ids either way.
SMALL_CHARS = 20_000


def embed(encoder: Encoder, atoms: Sequence[Atom]) -> np.ndarray:
    """One row per atom: float32, L2-normalised."""
    from memkit.embedding.encoder import encode_bulk

    texts = [atom_text(atom) for atom in atoms]
    chars = sum(map(len, texts))
    if chars < BULK_CHARS:
        # A refresh after an edit: the part cache costs ~0.2 s to set up.
        import numpy as np

        if not texts:
            return np.zeros((0, encoder.dim), dtype=np.float32)
        return encoder.encode(texts, full=None if chars >= SMALL_CHARS else False)
    return encode_bulk(encoder, texts)
