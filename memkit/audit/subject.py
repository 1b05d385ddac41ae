"""Per-subject values: one atom per environment, service or region is not a contradiction.

A team writes "In staging, services read credentials from secret/staging/db" and the same for
production with secret/production/db. The text classifier sees one frame with a changed path;
at the atom level the change is explained: each value embeds the atom's own subject, a word
its title, id or triggers carry and the other atom's lack. The rule: take each atom's subject
out of the values that embed it (a path, host, URL, address or identifier such as
`pg-staging-01`; never a value that is only the name, like `Kenji` or `us-east-1`) and ask
the classifier again; a contradiction that is gone was one per-subject value each.

The subject may also be written alone, capitalised, where the sentence names what it speaks
of ("In Staging, …" / "In Production, …", "The French translation …" / "The German …"): a
value at the head of a sentence that is exactly the two atoms' own subjects, case-folded, and
not a person or team (who leads is a value even where the titles name the people), is read as
one subject, and the pair classified again.
"""

from __future__ import annotations

import re
from typing import Any

from memkit.audit import frame
from memkit.audit.classify import conflict
from memkit.audit.text import sentences
from memkit.gate.duplicates import names

# A compound value: words joined by path, host, address or identifier separators, with an
# optional scheme (s3://, https://) and a leading / or ~. ASCII only: paths are not Chinese.
_COMPOUND = re.compile(
    r"(?:[a-z][a-z0-9+.-]*://)?[~/]?[a-z0-9]+(?:[./:@_-]+[a-z0-9]+)+", re.I | re.ASCII
)
_PART = re.compile(r"[a-z0-9]+", re.I | re.ASCII)
_LETTER = re.compile(r"[a-z]", re.I)
_NUMBER = re.compile(r"v?\d+", re.I)
# A title that names the means ("Migrations with Flyway", 用 Flyway 做迁移) is about a tool,
# and a change of tool is an update even where its name is in a script's (flyway-migrate.sh).
_MEANS = re.compile(
    r"(?:\b(?:with|using|via|through)\s+|(?:使用|通过|通過|用)\s*)([a-z][\w-]*)", re.I
)


def _subjects(atom: Any, other: Any) -> set[str]:
    """The Latin words that name `atom` and not `other`, but for numbers and versions
    (`node:18-alpine` under "Node 18" is a version) and the means its title names."""
    means = {w.lower() for w in _MEANS.findall(atom.title)}
    return {
        w
        for w in names(atom) - names(other)
        if w.isascii() and _LETTER.search(w) and not _NUMBER.fullmatch(w) and w not in means
    }


def _names_subject(part: str, subjects: set[str]) -> bool:
    """`prod` in a host name spells `production` in a title: a prefix of four letters or more."""
    low = part.lower()
    return any(
        low == s or (min(len(low), len(s)) >= 4 and (s.startswith(low) or low.startswith(s)))
        for s in subjects
    )


def _without(value: str, subjects: set[str], removed: set[str]) -> str:
    """`value` with the parts that name a subject cut out with their separators, unless
    nothing with a letter would be left (then the value is the name itself)."""
    parts = list(_PART.finditer(value))
    seps = [value[(parts[i - 1].end() if i else 0) : p.start()] for i, p in enumerate(parts)]
    kept = [i for i, p in enumerate(parts) if not _names_subject(p.group(), subjects)]
    if len(kept) == len(parts) or not any(_LETTER.search(parts[i].group()) for i in kept):
        return value
    removed.update(p.group().lower() for i, p in enumerate(parts) if i not in kept)
    # The first part kept takes the value's leading separator (`/etc`, none for `pg-01`).
    return "".join((seps[0] if n == 0 else seps[i]) + parts[i].group() for n, i in enumerate(kept))


def own_values(atom: Any, other: Any, text: str, other_text: str) -> tuple[str, str, str] | None:
    """The two texts with each atom's subject taken out of the compound values that embed
    it, and the subjects taken out (for the reason); None when no value embeds one."""
    removed_mine: set[str] = set()
    removed_theirs: set[str] = set()
    mine, theirs = _subjects(atom, other), _subjects(other, atom)
    if not mine and not theirs:
        return None
    a = _COMPOUND.sub(lambda m: _without(m.group(), mine, removed_mine), text) if mine else text
    b = (
        _COMPOUND.sub(lambda m: _without(m.group(), theirs, removed_theirs), other_text)
        if theirs
        else other_text
    )
    if a == text and b == other_text:
        return None
    shown = " / ".join(" ".join(sorted(r)) or "-" for r in (removed_mine, removed_theirs))
    return a, b, shown


def _head_swap(text: str, other_text: str, mine: set[str], theirs: set[str]) -> tuple[str, str]:
    """The two atoms' subjects where a sentence of each differs only in them, at its head."""
    for sa in sentences(text):
        for sb in sentences(other_text):
            change = frame.changed_value(sa, sb)
            if (
                change is not None
                and change.at_head
                and change.kind not in ("person", "team")
                and all(_names_subject(w, mine) for w in change.old.split())
                and all(_names_subject(w, theirs) for w in change.new.split())
            ):
                return change.old, change.new
    return "", ""


def _as_one_subject(
    atom: Any, other: Any, text: str, other_text: str
) -> tuple[str, str, str] | None:
    """`own_values`, then the other atom's subject read as this one's where a sentence of
    each names its own at its head (`_head_swap`); None when neither applies."""
    mine, theirs = _subjects(atom, other), _subjects(other, atom)
    masked = own_values(atom, other, text, other_text)
    a, b, shown = masked if masked else (text, other_text, "")
    old, new = _head_swap(a, b, mine, theirs) if mine and theirs else ("", "")
    if not old:
        return masked
    b = re.sub(rf"(?<!\w){re.escape(new)}(?!\w)", old, b, flags=re.I)
    return a, b, f"{shown}; {old} / {new}" if shown else f"{old} / {new}"


def per_subject(
    atom: Any, other: Any, texts: tuple[str, str], *, similarity: float, shared_triggers: int
) -> str:
    """The subjects taken out when a contradiction between two atoms is gone once each
    value is read without its own atom's subject (`own_values`, `_head_swap`): one value per
    subject, not two values of one thing. "" when the contradiction stays."""
    masked = _as_one_subject(atom, other, *texts)
    if masked is None:
        return ""
    still = conflict(masked[0], masked[1], similarity=similarity, shared_triggers=shared_triggers)
    return "" if still else masked[2]
