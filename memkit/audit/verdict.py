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

import functools
import re
from typing import Any

from memkit.audit import align, migration, sentences, wording
from memkit.audit import commands as cmd
from memkit.audit import lexicon as lx
from memkit.audit import values as vl
from memkit.audit.claims import set_valued, without_names
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
from memkit.audit.subject import _names_subject, _subjects, per_subject
from memkit.audit.text import statement_text
from memkit.gate.duplicates import DEFAULT_DUPLICATE, content_of, subject_swap

__all__ = [
    "CONTRADICTS",
    "DUPLICATE",
    "EXTENDS",
    "UNRELATED",
    "Verdict",
    "newer_of",
    "text_of",
    "verdict",
]


def text_of(atom: Any) -> str:
    """What an atom states, as the readers take it: title and body as plain lines, without
    the numbers of list items and records ("33. Use of AWS Cloud Map")."""
    if isinstance(atom, str):
        return without_names(atom)
    return without_names(statement_text(atom.title, atom.body))


_FENCE = re.compile(r"^\s*(```|~~~).*?^\s*\1[^\n]*$", re.M | re.S)
_LIST_NUMBER = re.compile(r"(?m)^\s*\d+\.\s+(?=\D)")


# What makes a substituted span the line's subject beyond doubt: a condition ("If you use
# X, …"), a list entry's label with its description, a command's name, a slot of its own.
_STRONG = frozenset(("condition", "label", "command", "slot"))


def raw_of(atom: Any) -> str:
    """What an atom states as its writer wrote it, code spans and link targets kept (`make
    lint` is one value, a moved page a changed one): the body without its heading, or the
    text itself; fenced blocks and the numbers of list items left out."""
    return _raw(atom if isinstance(atom, str) else _body(atom))


@functools.lru_cache(maxsize=4096)  # asked for one atom's text once per pair it is judged in
def _raw(text: str) -> str:
    return _LIST_NUMBER.sub("", _FENCE.sub("\n", text))


def _body(atom: Any) -> str:
    return content_of(atom).strip() or atom.title


def _other_place(a: Any, b: Any) -> str:
    """Two atoms about different code: their `paths:` or projects differ and do not meet."""
    pa, pb = set(getattr(a, "paths", ())), set(getattr(b, "paths", ()))
    if pa and pb and not pa & pb:
        return f"paths {', '.join(sorted(pa)[:2])} / {', '.join(sorted(pb)[:2])}"
    ja, jb = getattr(a, "project", ""), getattr(b, "project", "")
    if ja and jb and ja != jb:
        return f"projects {ja} / {jb}"
    return ""


def _named_by(atom: Any, other: Any, value: str) -> bool:
    """A substituted value that names the atom's own subject (its title, id or triggers
    carry it and the other's lack it): `secret/staging/db` under "Staging credentials"."""
    own = _subjects(atom, other)
    return bool(own) and any(
        _names_subject(part, own) for part in re.findall(r"[A-Za-z0-9]+", value)
    )


def _near_identical(a: Any, b: Any, reading: align.Reading, atoms: bool) -> Verdict | None:
    """The verdict on a near-identical pair no contradiction rule explained, from its
    alignment (`memkit.audit.align`):

    - a value substituted (a command, path, URL, number, version, tool, name, a switch, a
      word in a value's slot) is an update of that slot: never a duplicate;
    - a subject substituted (the head of the sentence, what an instruction acts on, one name
      in several places, a name each atom's title carries) is another claim: no finding;
    - a negation added alone denies the statement;
    - one plain word or verb substituted, or a detail without a value added or dropped, is
      another wording: the same statement; two or more, or a detail holding a value, is
      the same line saying more or other: very close (the gate's MK104).

    None when a negation came with other changes: the other readers decide."""
    subs = reading.substitutions
    # A command's flags or runner changed counts only where nothing else did: beside another
    # value ("uv pip install browser-use" / "pip install -r requirements-dev.lock") the pair
    # is read by that value.
    values = [e for e in reading.values if e.why != "command"] or list(reading.values)
    if reading.negations and (subs or reading.details):
        return None  # "publish from the workflow" / "never with a personal token"
    place = _other_place(a, b) if atoms else ""
    if place:
        return Verdict(EXTENDS, f"the same text about other code ({place})", quiet=True)
    named = [e for e in subs if atoms and _named_by(a, b, e.old) and _named_by(b, a, e.new)]
    if reading.subjects or named:
        edit = (named or list(reading.subjects))[0]
        return Verdict(
            EXTENDS, f"the same line about another subject ({edit.old} / {edit.new})", quiet=True
        )
    if values and any(e.kind == "word" for e in reading.wording):
        # A value and a plain word changed at once ("Session tokens … 12 hours" / "Refresh
        # tokens … 30 days"): another statement, not one slot updated.
        shown = "; ".join(f"{e.old} / {e.new}" for e in subs[:2])
        return Verdict(EXTENDS, f"the same frame saying another thing ({shown})", quiet=True)
    if values:
        names_only = not any(vl.holds_value(e.old) or vl.holds_value(e.new) for e in values)
        first = values[0]
        if names_only and set_valued(raw_of(a)) and set_valued(raw_of(b)):
            return Verdict(EXTENDS, f"another value where several hold ({first.old} / {first.new})")
        if all(
            wording.another_member(e.frame, e.old, e.new) and not vl.quantifiers(e.old, e.new)
            for e in values
        ):
            return Verdict(EXTENDS, f"another thing installed or added ({first.old} / {first.new})")
        one = (values[0].new, values[0].old) if len(values) == 1 else ()
        return Verdict(CONTRADICTS, "; ".join(_changed(e) for e in values[:3]), edit=one)
    if reading.flips:
        frame = reading.flips[0].frame
        return Verdict(
            CONTRADICTS, f'the same statement affirmed in one and negated in the other ("{frame}")'
        )
    if len(reading.details) == 1 and not reading.substitutions:
        left = reading.details[0]
        if left.kind == "added" and (left.why == "member" or vl.one_of_values(left.new, raw_of(a))):
            # "Build outputs: `dist/`, `bootstrap.js`, `worker-metafiles/`" / "… `dist/`,
            # `worker-metafiles/`": the list the other gives no longer holds that member.
            return Verdict(CONTRADICTS, f'leaves out {vl.member(left.new)} in "{left.frame}"')
        if mark := lx.status_mark(left.old or left.new):
            said = "no longer marked" if left.kind == "added" else "now marked"
            return Verdict(CONTRADICTS, f'{said} "{mark}" in "{left.frame}"')
    with_value = [e for e in reading.details if e.why or vl.states_more(e.old or e.new)]
    words = [e for e in reading.wording if e.kind == "word"]
    if len(reading.wording) > 1 or words or with_value:
        # A plain word substituted may be a synonym or a changed thing ("library crate" /
        # "proc macro crate"): never a duplicate, a warning to look.
        shown = "; ".join(_shown(e) for e in (*with_value, *reading.wording)[:2])
        return Verdict(EXTENDS, f"the same line saying more or other ({shown})", near=True)
    how = "in other words" if reading.edits else "in other function words"
    return Verdict(DUPLICATE, f"the same statement {how} (alignment keeps {reading.kept:.0%})")


def _shown(edit: align.Edit) -> str:
    """An edit as this atom (the first of the pair) differs from the other."""
    if edit.kind == "dropped":
        return f"adds {edit.old}"
    if edit.kind == "added":
        return f"leaves out {edit.new}"
    return f"{edit.new} → {edit.old}"


def _changed(edit: align.Edit) -> str:
    """The other atom's value, then this one's: every caller passes the new or incoming atom
    first, so the reason reads as the change ("`make lint` → `make check`")."""
    return f'{edit.new} → {edit.old} in "{edit.frame}"'


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
    ra, rb = raw_of(a), raw_of(b)
    reading = align.read(ra, rb) or sentences.read_in(ra, rb)
    subjects = reading.subjects if reading is not None and not reading.negations else ()
    if reason and subjects and all(e.why in _STRONG for e in subjects):
        # The same line about another subject ("If you use W&B, …" / "If you use SwanLab,
        # …"): the value that differs belongs to each subject, as each line says.
        edit = subjects[0]
        return Verdict(
            EXTENDS, f"the same line about another subject ({edit.old} / {edit.new})", quiet=True
        )
    if reason:
        explained = (
            per_subject(a, b, (ta, tb), similarity=similarity, shared_triggers=shared_triggers)
            if atoms
            else ""
        )
        if not explained:
            return Verdict(CONTRADICTS, reason)
        return Verdict(EXTENDS, f"each value names its own subject ({explained}): {reason}")
    if reading is not None:
        found = _near_identical(a, b, reading, atoms)
        if found is not None:
            return found
    elif (tiny := vl.one_value(ra, rb)) is not None:
        mine, theirs, where = tiny
        return Verdict(CONTRADICTS, f'{theirs} → {mine} in "{where}"', edit=(theirs, mine))
    elif (programs := cmd.other_program(ra, rb)) is not None:
        return Verdict(CONTRADICTS, f"{programs[1]} → {programs[0]}")
    swap = subject_swap(a, b) if atoms else None
    if swap is not None:
        return Verdict(
            EXTENDS, f"same text about another subject ({swap[0]} / {swap[1]})", quiet=True
        )
    found = no_conflict(
        ta,
        tb,
        similarity=similarity,
        duplicate_at=duplicate_at,
        related_at=related_at,
        shared_triggers=shared_triggers,
    )
    if found.kind != DUPLICATE:
        return found
    if vl.swapped(ra, rb):
        # A command, path or tool in each that the other lacks: two claims, however close
        # the vectors ("uv pip install browser-use" / "uvx browser-use install").
        return Verdict(EXTENDS, f"close, but each states a value the other lacks ({found.reason})")
    if extra := vl.unmatched_value(ra, rb):
        # "Run with `pnpm test` …" / "Run with `pnpm test:server` … `pnpm test` is reserved
        # for …": a value more is a claim more.
        return Verdict(EXTENDS, f"close, but only one states {extra} ({found.reason})", near=True)
    if vl.denied(ra, rb):
        # "(active)" / "- this is deprecated, never modify this package".
        return Verdict(EXTENDS, f"close, but only one says no ({found.reason})", near=True)
    return found


def newer_of(a: Any, b: Any, texts: tuple[str, str]) -> Any:
    """Which of two contradicting atoms is the update: the one that reports the change ("we
    moved CI from Jenkins to GitHub Actions"), else the later `created`, else `a` (the one
    that came in). Only the newer is ever told to supersede the other: one fix, never two
    opposite ones."""
    if migration.retired(*texts):
        return a
    if migration.retired(texts[1], texts[0]):
        return b
    return b if (getattr(b, "created", "") or "") > (getattr(a, "created", "") or "") else a
