"""An atom's plain text: title and body without Markdown markup, what a reader reads.

The index embeds it, the write gate scores and compares it, the audit compares it: one
definition, here, below all of them (standard library only).
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memkit.atom import Atom

_MARKUP = re.compile(r"^#{1,6}\s+|^\s*(?:[-*+]|\d+[.)])\s+|[*_`>|]", re.M)


@functools.lru_cache(maxsize=4096)  # asked for one atom's text once per pair it is judged in
def plain_text(title: str, body: str) -> str:
    """Title and body without Markdown markup, whitespace folded: what a reader reads."""
    text = body
    if title and title not in body:
        text = f"{title}\n{body}"
    return " ".join(_MARKUP.sub(" ", text).split())


def atom_text(atom: Atom) -> str:
    """The text an atom's vector and its comparisons with other atoms are made of."""
    return plain_text(atom.title, atom.body)
