"""The vectors of a build: one per atom, one per section, each text tokenised once.

An atom's vector is model2vec's vector of its plain text (`memkit.vectors.atom_text`), the
same as the write gate and the audit compute for it. Its sections are that text cut at the
headings, so each section's plain text is tokenised once and the atom's token ids are theirs
in order (when the pieces joined are the atom's text and each normalises cleanly; else, and
for a text longer than the model reads, the atom's own text is tokenised too). A section's
vector is the mean of the atom title's tokens and its own (its own only when its heading is
the title), cut at the model's max_length: what the section says, in the atom's context.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import TYPE_CHECKING

import numpy as np

from memkit.gate.text import plain_text
from memkit.vectors import atom_text

if TYPE_CHECKING:
    from memkit.atom import Atom
    from memkit.embedding import Encoder


BULK_CHARS = 400_000  # text (~200 atoms) from which the part cache pays for itself


class _Plan:
    """Which tokenised texts make up one atom and its sections."""

    __slots__ = ("lead", "sections", "title", "whole")

    def __init__(self, title: int, lead: int, sections: range, whole: int) -> None:
        self.title = title  # the title alone
        self.lead = lead  # the title ahead of the body (when the body lacks it), or -1
        self.sections = sections  # each section's plain text
        self.whole = whole  # the atom's own text when its pieces cannot stand for it, or -1


# Between the pieces of an atom made plain in one pass: no markup pattern reaches over a
# NUL (no atom holds one), and the line after it starts a line as the piece did.
_SEPARATOR = "\x00\n"


def _plain_pieces(atom: Atom) -> list[str]:
    """The plain text of the atom's title, then of each section (`plain_text` of each)."""
    pieces = [atom.title, *(section.text for section in atom.sections)]
    return [part.strip() for part in plain_text("", _SEPARATOR.join(pieces)).split("\x00")]


def embed(encoder: Encoder, atoms: Sequence[Atom]) -> tuple[np.ndarray, np.ndarray]:
    """(one row per atom, one row per section in atom order): float32, L2-normalised."""
    texts: list[str] = []
    plans: list[_Plan] = []
    cut = encoder.cut_chars
    for atom in atoms:
        text = atom_text(atom)
        title = len(texts)
        texts.extend(_plain_pieces(atom))
        lead = title if atom.title and atom.title not in atom.body else -1
        first = title + 1
        pieces = ([texts[title]] if lead >= 0 else []) + texts[first:]
        whole = -1
        if (cut is not None and len(text) > cut) or " ".join(p for p in pieces if p) != text:
            whole = len(texts)
            texts.append(text[:cut] if cut is not None else text)
        plans.append(_Plan(title, lead, range(first, first + len(atom.sections)), whole))
    if sum(map(len, texts)) < BULK_CHARS:
        return _plainly(encoder, atoms, texts, plans)
    clean: list[bool] = []
    numbers = encoder.bulk_parts(texts, clean)
    if numbers is None:  # a tokenizer of another shape: the encoder's own way, text by text
        return _plainly(encoder, atoms, texts, plans)
    atom_rows: list[list[int]] = []
    section_rows: list[list[int]] = []
    redo: list[int] = []  # atoms whose pieces normalise to spaces at an end: read whole
    for k, (atom, plan) in enumerate(zip(atoms, plans, strict=True)):
        numbered = ([plan.lead] if plan.lead >= 0 else []) + list(plan.sections)
        used = [n for n in numbered if texts[n]]
        if plan.whole >= 0:
            atom_rows.append(numbers[plan.whole])
        elif all(clean[n] for n in used):
            atom_rows.append(list(chain.from_iterable(numbers[n] for n in used)))
        else:
            atom_rows.append([])
            redo.append(k)
        for section, n in zip(atom.sections, plan.sections, strict=True):
            own = numbers[n]
            section_rows.append(own if section.heading == atom.title else numbers[plan.title] + own)
    vectors = encoder.pool(atom_rows)
    if redo:
        vectors[redo] = encoder.encode([atom_text(atoms[k]) for k in redo], bulk=True)
    return vectors, encoder.pool(section_rows)


def _plainly(
    encoder: Encoder, atoms: Sequence[Atom], texts: list[str], plans: list[_Plan]
) -> tuple[np.ndarray, np.ndarray]:
    """The same vectors with the tokenizer as it is: for a few atoms (a refresh after an
    edit: the part cache costs ~0.2 s to set up), or a model bulk.py does not handle."""
    ids = encoder.token_ids(texts)
    atom_vectors = encoder.encode([atom_text(a) for a in atoms])
    rows = [
        ids[n] if section.heading == atom.title else ids[plan.title] + ids[n]
        for atom, plan in zip(atoms, plans, strict=True)
        for section, n in zip(atom.sections, plan.sections, strict=True)
    ]
    return atom_vectors, encoder.mean_rows(rows)
