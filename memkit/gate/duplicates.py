"""Near-duplicate detection with the embedding model.

Raw cosines of static embeddings run high (related texts 0.8+), so the thresholds are
calibrated on labelled pairs (see docs/benchmarks.md) rather than taken from the seeds.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memkit.atom.text import plain_text
from memkit.atom.title import title_of
from memkit.vectors import neighbours

if TYPE_CHECKING:
    from memkit.atom import Atom

DEFAULT_DUPLICATE = 0.92
DEFAULT_NEAR = 0.80
# A static embedding is the mean of its tokens' vectors, so long texts drift towards one
# mean: unrelated 300-word decision records reach a cosine of 0.95. When either text is long
# (this many distinct words), a duplicate must also share `SHARED_WORDS` of its words.
LONG_TEXT_WORDS = 60
SHARED_WORDS = 0.5
_WORD = re.compile(r"\w+")
# For the subject check: Latin words and numbers whole, CJK one character at a time (a
# Chinese name is a few characters inside a run with no spaces).
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(f"[{_CJK}]|[^\\W_{_CJK}]+")


@dataclass(frozen=True)
class Match:
    id: str
    path: str
    similarity: float
    standing: float = 0.0  # standard deviations above the atom's mean similarity


@dataclass(frozen=True)
class DuplicateSettings:
    duplicate: float = DEFAULT_DUPLICATE
    near: float = DEFAULT_NEAR

    @classmethod
    def from_config(cls, section: Mapping[str, Any]) -> DuplicateSettings:
        dup = section.get("duplicate", DEFAULT_DUPLICATE)
        near = section.get("near_duplicate", DEFAULT_NEAR)
        return cls(
            duplicate=float(dup) if isinstance(dup, (int, float)) else DEFAULT_DUPLICATE,
            near=float(near) if isinstance(near, (int, float)) else DEFAULT_NEAR,
        )


def words_agree(a: str, b: str) -> bool:
    """Whether a high cosine between `a` and `b` may be read as duplication: always for two
    short texts; with a long one, only when they share enough words."""
    wa, wb = _words(a), _words(b)
    if max(len(wa), len(wb)) < LONG_TEXT_WORDS:
        return True
    return len(wa & wb) >= SHARED_WORDS * len(wa | wb)


# The gate and the audit judge one atom against each of its neighbours: a text's words are
# read once, not once per pair (a 256 KB atom's, ten times, was a second of its commit).
@functools.lru_cache(maxsize=1024)
def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


@functools.lru_cache(maxsize=1024)
def _tokens(text: str) -> frozenset[str]:
    return frozenset(_TOKEN.findall(text.lower()))


@dataclass(frozen=True)
class _Texts:
    body: str
    title: str


@functools.lru_cache(maxsize=16384)
def _letters(text: str) -> str:
    """A text as its letters and digits: "`docs`: Documentation" is its plain heading "docs:
    Documentation"."""
    text = re.sub(r"\]\([^)\s]*\)", "]", text)  # a heading is read without its links' targets
    return re.sub(r"\W+", "", plain_text("", text)).lower()


def content_of(atom: Atom) -> str:
    """The body without its `# title` heading."""
    return _content(atom.body, atom.title)


@functools.lru_cache(maxsize=16384)
def _content(body: str, title: str) -> str:
    """`content_of` by value: an audit reads each atom's content for many pairs."""
    atom = _Texts(body, title)
    first, _, rest = atom.body.lstrip().partition("\n")
    heading = first.lstrip("#").strip()
    same = heading == atom.title.strip() or _letters(heading) == _letters(atom.title)
    # Or a heading made from the body's first words (`memkit add TEXT`), cut with "…".
    made = bool(_letters(heading)) and _letters(rest).startswith(_letters(heading.rstrip("…")))
    return rest if first.startswith("#") and (same or made) else atom.body


def names(atom: Atom) -> frozenset[str]:
    """The words an atom is named by: its triggers, and its title and id unless the title is
    only made from the body (`memkit add TEXT` without --title: its first words, or its first
    sentence without "From now on we…"), which names nothing."""
    title = atom.title.rstrip("…").strip()
    content = content_of(atom).lstrip()
    # A heading is read without its markup ("Type hints must pass make mypy" under `make
    # mypy`): compare the plain texts too.
    derived = (
        not title
        or content.startswith(title)
        or atom.title == title_of(content)
        or _letters(content).startswith(_letters(title))
        or _letters(title_of(content)) == _letters(atom.title)
    )
    return _tokens(" ".join(atom.triggers if derived else (atom.id, atom.title, *atom.triggers)))


def _spelling(a: AbstractSet[str], b: AbstractSet[str]) -> bool:
    """Two spellings of one name (Postgres and PostgreSQL, auth and authentication): each
    word on one side begins, or is the beginning of, a word on the other."""
    return all(any(x.startswith(y) or y.startswith(x) for y in b) for x in a)


def subject_swap(atom: Atom, other: Atom) -> tuple[str, str] | None:
    """The subjects of two atoms that are one text about two subjects, or None.

    One procedure per service, team or table: each body has words the other lacks, and
    among them names the atom carries in its id, title or triggers and the other atom's
    name lacks (its subject), with no more other words than subject words (a release name
    or a tool that goes with the subject: `helm rollback auth` in a Chinese text, gofmt for
    Go). A static embedding puts such texts at 0.92 and more, yet neither is a copy of the
    other. Two spellings of one name (`_spelling`) are one subject; bodies that differ only
    in their titles, or in words no name explains, are not a subject swap.
    """
    mine, theirs = _tokens(content_of(atom)), _tokens(content_of(other))
    only_mine, only_theirs = mine - theirs, theirs - mine
    names_mine, names_theirs = names(atom), names(other)
    subject_mine = only_mine & (names_mine - names_theirs)
    subject_theirs = only_theirs & (names_theirs - names_mine)
    if not subject_mine or not subject_theirs:
        return None
    if len(only_mine) > 2 * len(subject_mine) or len(only_theirs) > 2 * len(subject_theirs):
        return None
    if _spelling(subject_mine, subject_theirs):
        return None
    return _shown(content_of(atom), subject_mine), _shown(content_of(other), subject_theirs)


def _shown(body: str, words: AbstractSet[str]) -> str:
    """`words` in the order and case they first appear in `body` (CJK characters joined)."""
    seen: dict[str, str] = {}
    for m in _TOKEN.finditer(body):
        if m.group().lower() in words:
            seen.setdefault(m.group().lower(), m.group())
    return "".join(w if len(w) == 1 and not w.isascii() else f" {w}" for w in seen.values()).strip()


def nearest(
    candidates: Sequence[Atom], *, root: Path, floor: float = DEFAULT_NEAR, limit: int = 3
) -> dict[str, list[Match]]:
    """For each candidate, the live atoms of the repository at or above `floor`, best first."""
    found, _ = neighbours(root, candidates, floor=floor, limit=limit)
    return {
        path: [Match(n.id, n.path, n.similarity, n.standing) for n in near]
        for path, near in found.items()
    }
