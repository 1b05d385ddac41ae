"""How a near-identical pair's wording may differ without its claim changing, and where it may
not: small word lists and rules `memkit.audit.align` consults (data, not readers of their own).

- **One lemma.** "exporting" / "re-exports", "tag" / "tagged": one word inflected or
  repeated ("re-"), not another word.
- **A noun, not a verb.** One word after a determiner that ends its phrase ("on every
  push" / "on every merge", "cut the release" / "cut the build") names a thing, even when
  the word can be a verb: another thing, never the same statement in other words.
- **A lead-in.** What a line says before its instruction without stating anything of its
  own: a label restating the line's topic ("Pre-commit formatting: make sure to run
  pre-commit …"), "make sure to", "ensure", "remember to", or the project's own name before
  the instruction's verb ("LLaMA Factory follows the style guide" / "Follow the style
  guide"). Not a person's name, not a label about something else ("Production: deploy …").
- **Names of one family.** Two hyphenated names that share their first part (`ai-core` /
  `ai-functions`, `agents-core` / `agents-openai`) are two names: a value, not a word.
- **Another member.** What an install or an import adds is one of many: "pip install
  browser-use" / "pip install -r requirements-dev.lock" install two things, both true; a
  package and its version or extra (`react-devtools@4.28.5` / `@4.29.0`) are one thing.
- **Scope.** Words that one side drops and the other adds elsewhere moved, unless a scope word
  among them ("before", "after", "unless", "instead of", …) now governs other words: "Transfer
  the changes, or ask the user before using X" / "Ask the user before transferring the changes
  or using X" hold the same words, and the second asks first for both: an update, not a
  duplicate.

Evaluated and not adopted (docs/benchmarks.md, Judgement II): the embedding model's cosine of
the two substituted spans. Synonyms the dev pairs hold ("脚本" / "方案", "handoff" / "marking
work complete") sit at 0.23-0.64, the plain words of updates and contradictions ("上海" /
"深圳", "開啟" / "關閉", "library" / "proc macro") at 0.11-0.64: a static model puts two
things of one kind as close as two words for one thing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from memkit.audit.lexicon import FIRST_NAMES, word_set

# Words that say which part of a line another part applies to.
SCOPE = word_set("before after unless until instead except without once whenever only")
_FOLLOWING = 2  # content words after a scope word that say what it governs


# Content words (normalised) that only urge: "make sure to run X" is "run X".
_URGING = (("make", "sure"), ("sure",), ("ensure",), ("remember",))


def lead_in(toks: Sequence[Any], s1: int, s2: int, other: Sequence[Any], o1: int) -> bool:
    """Whether `toks[s1:s2]`, which only one text has, before the verb both start an
    instruction with (`other[o1]`), says nothing of its own: a label restating a word of the
    line and words that only urge, or the project's name as the subject of that verb
    ("LLaMA Factory follows the guide" / "Follow the guide"). Tokens as `memkit.audit.align`
    makes them."""
    starts = (s1 == 0 or toks[s1 - 1].kind == "end") and (o1 == 0 or other[o1 - 1].kind == "end")
    if not starts or s2 >= len(toks) or o1 >= len(other) or toks[s2].norm != other[o1].norm:
        return False
    span = [t for t in toks[s1:s2] if t.kind in _CONTENT_KINDS or t.kind == "cjk"]
    if any(t.kind != "word" for t in span):
        return False  # a value, a command, a path: something of its own
    sep = next((i for i in range(s1, s2) if toks[i].kind == "sep"), None)
    label = [t.norm for t in toks[s1:sep] if t.kind == "word"] if sep is not None else []
    rest = [t.norm for t in toks[s1 if sep is None else sep + 1 : s2] if t.kind == "word"]
    line = [t.norm for t in toks[s2:] if t.kind == "word"]
    if label and not any(same_lemma(w, x) for w in label for x in line):
        return False  # a label of its own ("Production: deploy …")
    if not rest or tuple(rest) in _URGING:
        return True
    verb = toks[s2].text.lower()
    named = all(t.text[:1].isupper() and t.norm not in FIRST_NAMES for t in span)
    return sep is None and named and verb.endswith("s") and verb[:-1] == toks[s2].norm


_KIN = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+")


def kin(x: str, y: str) -> bool:
    """Two lowercase hyphenated names that share their first part and differ after it."""
    if not (_KIN.fullmatch(x) and _KIN.fullmatch(y)) or x == y:
        return False
    head_x, rest_x = x.split("-", 1)
    head_y, rest_y = y.split("-", 1)
    return head_x == head_y and not same_lemma(rest_x, rest_y)


# Verbs whose object is one of many: what is installed, added, imported.
_ADDING = word_set("install add import include require 安装 安裝 添加 引入 导入 導入")
_PARTS = re.compile(r"[A-Za-z][A-Za-z0-9]+|[\u4e00-\u9fff]+")


def another_member(frame: str, old: str, new: str) -> bool:
    """Whether a value substituted right after an adding verb (its `frame`: "words before …
    words after") is another member rather than this one's new value: the two share no
    name ("browser-use" / "requirements-dev.lock", but not "react-devtools@4.28" / "@4.29")."""
    before = frame.split("…", maxsplit=1)[0].split()
    if not before or before[-1].lower() not in _ADDING:
        return False
    parts_old = {p.lower() for p in _PARTS.findall(old)} - {"r", "e", "g", "d"}
    parts_new = {p.lower() for p in _PARTS.findall(new)}
    return bool(parts_old) and bool(parts_new) and not parts_old & parts_new


# Words after which the next word names a thing.
_NOUN_MARKERS = word_set("a an the every each any per this that these those our your its their")
_CONTENT_KINDS = frozenset(("code", "url", "path", "qty", "ver", "num", "flag", "channel", "word"))


def noun_head(toks: Sequence[Any], i1: int, i2: int, other_words: int) -> bool:
    """Whether one word substituted at `toks[i1:i2]` (by one word: `other_words`) is the head
    of a noun phrase: right after a determiner, with no content word after it."""
    if i2 - i1 != 1 or other_words != 1 or i1 == 0:
        return False
    after = toks[i2] if i2 < len(toks) else None
    return toks[i1 - 1].norm in _NOUN_MARKERS and (
        after is None or after.kind not in _CONTENT_KINDS
    )


def lemmas(word: str) -> frozenset[str]:
    """What a word may be without its inflection and a repetition prefix: "re-exports" and
    "exporting" hold export, "committed" commit, "changes" change."""
    low = word.lower()
    if low.startswith("re-") and len(low) > 5:
        low = low[3:]
    out = {low}
    for suffix in ("ing", "ed", "es", "s"):
        if low.endswith(suffix) and not (suffix == "s" and low.endswith("ss")):
            base = low[: -len(suffix)]
            out |= {base, base + "e"}
            if len(base) > 3 and base[-1] == base[-2]:
                out.add(base[:-1])  # committing → commit, tagged → tag
    return frozenset(w for w in out if len(w) >= 3)


def same_lemma(x: str, y: str) -> bool:
    """Two words that are one word inflected or repeated ("exporting" / "re-exports"): plain
    words only, never identifiers (`ruff_cli` and `ruff` are two crates)."""
    if not all(w.replace("-", "").isalpha() for w in (x, y)):
        return x == y
    return x == y or bool(lemmas(x) & lemmas(y))


def scope_changed(
    a: Sequence[tuple[str, bool]], b: Sequence[tuple[str, bool]], moved: Sequence[str]
) -> tuple[str, str] | None:
    """Where a scope word among the `moved` words governs other words in `b` than in `a`
    (each text as (normalised word, is content) per token, the word as often in each): what
    it governs in each, as "before using" / "before transferring"; None when every one
    governs the same."""
    for word in sorted({w for w in moved if w in SCOPE}):
        ga, gb = _governed(a, word), _governed(b, word)
        if len(ga) != len(gb):
            continue  # a condition added or dropped: a detail, read as one
        if not all(any(_alike(x, y) for y in gb) for x in ga):
            old = next((x for x in ga if not any(_alike(x, y) for y in gb)), [])
            new = next((y for y in gb if not any(_alike(x, y) for x in ga)), [])
            return " ".join([word, *old]), " ".join([word, *new])
    return None


def _governed(toks: Sequence[tuple[str, bool]], word: str) -> list[list[str]]:
    """The content words that follow each use of a scope word."""
    out: list[list[str]] = []
    for i, (norm, _) in enumerate(toks):
        if norm == word:
            after = [n for n, content in toks[i + 1 :] if content and n not in SCOPE]
            out.append(after[:_FOLLOWING])
    return out


def _alike(x: list[str], y: list[str]) -> bool:
    """The same words in any order, inflected or not."""
    return len(x) == len(y) and all(any(same_lemma(p, q) for q in y) for p in x)


def typo(x: str, y: str) -> bool:
    """One letter left out or one pair of letters swapped in a long word, its first letter
    the same: a spelling mended, not another word ("garantee" / "guarantee"). A letter for
    another is left alone: "enable" / "unable", "format" / "formal" are two words."""
    if min(len(x), len(y)) < 6 or x[0] != y[0] or x == y:
        return False
    if len(x) == len(y):
        diff = [i for i in range(len(x)) if x[i] != y[i]]
        return len(diff) == 2 and diff[1] == diff[0] + 1 and x[diff[0]] == y[diff[1]]
    short, long = sorted((x, y), key=len)
    return len(long) == len(short) + 1 and any(
        long[:i] + long[i + 1 :] == short for i in range(1, len(long))
    )
