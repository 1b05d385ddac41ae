"""The one judgement of two atoms (DESIGN.md §11b): duplicate, contradicts, extends or unrelated.

The pre-commit gate (MK103/MK104, and MK105/MK106 through `memkit.audit.write`), the pull audit
and `memkit audit --all` (`memkit.audit.run`), `memkit add` and the MCP save (both through the
gate and the write check) and recall's disagreement line (which reads what the audit and the
write check recorded) all call `verdict`; nothing else decides a pair.

What it reads of each atom is a claim: a subject, a relation and values.

1. **Subject.** The words an atom is named by (title, id, triggers) that the other's lack are
   its own subject. A value that embeds it (`secret/staging/db` under "Database credentials in
   staging") is read without it, and a sentence whose head is that subject ("In Staging, …")
   is read as the other's: a disagreement that is gone then was one value per subject
   (`memkit.audit.subject`). A body that differs from the other only in those names is the
   same text about another subject: never a duplicate (`subject_swap`).
2. **Contradiction** (`memkit.audit.classify.conflict`): the same subject and a functional
   relation with different values, or one atom retiring what the other still states
   (negation, opposite instructions, migration, replacement); values are sets, identifiers
   are no values, set-valued relations hold many (`memkit.audit.claims`).
3. **Duplicate**: the same claims. Never when one states a value (a person, place, tool,
   number, version) where the other states another it does not hold (`frame.swapped_value`:
   "Farah is a professional climber" / "Tomasz is …"). Then a cosine at or above
   `duplicate_at` (long texts must also share half their words: static vectors of long texts
   drift together), or, below it, the same numbers on both sides with most content words
   shared.
4. Otherwise **extends** (same subject, no conflict) or **unrelated**.

"Very close" (MK104) is not a kind of pair but a warning about one: `memkit.audit.near`.
"""

from __future__ import annotations

from typing import Any

from memkit.audit.claims import without_names
from memkit.audit.classify import (
    CONTRADICTS,
    DUPLICATE,
    EXTENDS,
    UNRELATED,
    Verdict,
    conflict,
    no_conflict,
    overlap,
)
from memkit.audit.subject import per_subject
from memkit.audit.text import statement_text
from memkit.gate.duplicates import DEFAULT_DUPLICATE, subject_swap

__all__ = ["CONTRADICTS", "DUPLICATE", "EXTENDS", "UNRELATED", "Verdict", "text_of", "verdict"]


def text_of(atom: Any) -> str:
    """What an atom states, as the readers take it: title and body as plain lines, without
    the numbers of list items and records ("33. Use of AWS Cloud Map")."""
    if isinstance(atom, str):
        return without_names(atom)
    return without_names(statement_text(atom.title, atom.body))


def verdict(
    a: Any,
    b: Any,
    *,
    similarity: float,
    shared_triggers: int = 0,
    duplicate_at: float = DEFAULT_DUPLICATE,
    related_at: float = 0.60,
    texts: tuple[str, str] | None = None,
) -> Verdict:
    """Judge two atoms (anything with title, body, id and triggers) or two plain texts;
    `similarity` is their embedding cosine. `texts` are `text_of(a), text_of(b)` when the
    caller has them already (an audit reads each atom once for many pairs)."""
    ta, tb = texts or (text_of(a), text_of(b))
    atoms = not isinstance(a, str) and not isinstance(b, str)
    share = overlap(ta, tb)
    if not (similarity >= related_at or shared_triggers > 0 or share >= 0.3):
        return Verdict(UNRELATED, f"similarity {similarity:.2f}, no shared triggers")
    reason = conflict(ta, tb, similarity=similarity, shared_triggers=shared_triggers)
    if reason:
        explained = (
            per_subject(a, b, (ta, tb), similarity=similarity, shared_triggers=shared_triggers)
            if atoms
            else ""
        )
        if not explained:
            return Verdict(CONTRADICTS, reason)
        return Verdict(EXTENDS, f"each value names its own subject ({explained}): {reason}")
    swap = subject_swap(a, b) if atoms else None
    if swap is not None:
        return Verdict(EXTENDS, f"same text about another subject ({swap[0]} / {swap[1]})")
    return no_conflict(
        ta,
        tb,
        similarity=similarity,
        duplicate_at=duplicate_at,
        related_at=related_at,
        shared_triggers=shared_triggers,
    )
