""" "Very close" (MK104): a new atom that may belong in an existing one.

A static embedding puts unrelated texts of one team at a cosine of 0.75-0.85 and a line with
one value changed at 0.92-0.99, so closeness of vectors says nothing a team can act on. A
pair is very close when the one verdict reads it as the same line saying a little more or
other (`memkit.audit.verdict`, `Verdict.near`: a detail holding a value added or dropped,
two words reworded), and nobody has settled it: a `related:` link either way means the team
keeps both.
"""

from __future__ import annotations

from typing import Any


def linked(atom: Any, other: Any) -> bool:
    """Either atom names the other in `related:` (or `supersedes`): the team has decided."""
    ids_a = {*getattr(atom, "related", ()), *getattr(atom, "supersedes", ())}
    ids_b = {*getattr(other, "related", ()), *getattr(other, "supersedes", ())}
    return other.id in ids_a or atom.id in ids_b
