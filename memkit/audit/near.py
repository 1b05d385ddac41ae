""" "Very close" (MK104): a new atom that may belong in an existing one, calibrated per memory.

A static embedding puts unrelated texts of one team at a cosine of 0.75–0.85 ("every gRPC call
sets a deadline of 800 ms" is 0.82 from the WebSocket heartbeat), so no fixed threshold tells a
near copy from a neighbour. A pair is near only when all of these hold:

- **it stands out**: the cosine is at least `STANDING` standard deviations above the new atom's
  mean cosine to every live atom of this memory (`memkit.vectors.Neighbour.standing`);
- **it shares content words**: at least `SHARED_WORDS` content words, and `SHARED_SHARE` of
  the smaller atom's;
- **it is about the same thing**: no value of one is swapped for another in the other's place
  ("Amara is the tech lead of the search team" is not close to "Kenji is the tech lead of the
  payments team": two people, two teams);
- **nobody settled it**: a `related:` link either way means the team keeps both.
"""

from __future__ import annotations

from typing import Any

from memkit.audit.classify import words
from memkit.audit.frame import swapped_value

STANDING = 2.5
SHARED_WORDS = 3
SHARED_SHARE = 0.35


def linked(atom: Any, other: Any) -> bool:
    """Either atom names the other in `related:` (or `supersedes`): the team has decided."""
    ids_a = {*getattr(atom, "related", ()), *getattr(atom, "supersedes", ())}
    ids_b = {*getattr(other, "related", ()), *getattr(other, "supersedes", ())}
    return other.id in ids_a or atom.id in ids_b


def near(text: str, other_text: str, standing: float) -> bool:
    """Whether a pair the verdict left as `extends` deserves the MK104 warning."""
    if standing < STANDING:
        return False
    wa, wb = words(text), words(other_text)
    shared = wa & wb
    if len(shared) < SHARED_WORDS or len(shared) < SHARED_SHARE * min(len(wa), len(wb)):
        return False
    return swapped_value(text, other_text) is None
