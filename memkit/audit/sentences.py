"""A short text read against the one sentence of a longer text it is the same line as
(`memkit.audit.align.read` on each sentence): one line of a release procedure changed, read
as that line, not as the whole procedure against one sentence."""

from __future__ import annotations

import functools
import re

from memkit.audit import align
from memkit.audit import tokens as tk

# A line read against the lines of a longer atom: at most this many sentences on its side.
SHORT = 2


def read_in(a: str, b: str) -> align.Reading | None:
    """A short text read against the one sentence of a longer text that it is the same line
    as, with one value changed or not ("Bump the version with `just bump`" against a release
    procedure whose third line says `make bump`); None when no sentence is near-identical."""
    pieces_a, pieces_b = _pieces(a), _pieces(b)
    if len(pieces_a) > SHORT < len(pieces_b) or len(pieces_a) == len(pieces_b) == 1:
        return None
    short, long, flipped = (
        (a, pieces_b, False) if len(pieces_a) <= len(pieces_b) else (b, pieces_a, True)
    )
    if len(long) <= SHORT:
        return None
    best: align.Reading | None = None
    for piece in long:
        found = align.read(piece, short) if flipped else align.read(short, piece)
        if found is not None and (best is None or found.kept > best.kept):
            best = found
    return best


@functools.lru_cache(maxsize=16384)
def _pieces(text: str) -> tuple[str, ...]:
    """The sentences of a text as written (code spans and links kept), one per line item."""
    out: list[str] = []
    for line in text.splitlines():
        out += [p for p in _SENTENCE_END.split(line) if tk.content_of(list(tk.tokens(p)))]
    return tuple(out)


_SENTENCE_END = re.compile(r"(?<=[.!?;。！？；])\s+(?=[A-Z`*\[(\u4e00-\u9fff])")
