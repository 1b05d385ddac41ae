"""Shared text helpers for the gate: CJK detection, case folding, fast matching. An atom's
plain text is `memkit.atom.text`."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache

# Kana, CJK ideographs (with extension A and the compatibility block), Hangul syllables and
# Hangul compatibility jamo: the one meaning of "CJK" in memkit (the index's n-grams too).
CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u3131-\u318e"
CJK_RE = re.compile(f"[{CJK_CHARS}]")


def has_cjk(text: str) -> bool:
    return CJK_RE.search(text) is not None


@cache
def compiled(source: str) -> re.Pattern[str]:
    """`source` compiled case-insensitively, once per process: the large order patterns are
    compiled when first tried, not at import, and kept here rather than in `re`'s own cache,
    which drops its oldest entries past 512 and would make a long-lived engine compile a
    30 ms pattern again."""
    return re.compile(source, re.I)


# The only characters outside ASCII that Python's case-insensitive matching takes for an
# ASCII letter (İ ı ſ K): lower-casing alone would keep them apart from an ASCII word.
_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


_FOLDED_AWAY = re.compile("[\u0130\u0131\u017f\u212a]")


def folded(text: str) -> str:
    """`text` lower-cased so that every ASCII word a case-insensitive pattern matches in it
    is a substring: what quick "could this pattern match at all" checks look in."""
    if _FOLDED_AWAY.search(text) is None:
        return text.lower()
    return text.translate(_FOLD).lower()


def starts(lowered: str, words: Iterable[str]) -> set[int]:
    """Every offset of every word in `lowered` (a `folded` text: the same offsets as the
    original, which `folded` keeps)."""
    found: set[int] = set()
    for word in words:
        at = lowered.find(word)
        while at >= 0:
            found.add(at)
            at = lowered.find(word, at + 1)
    return found


def finditer_at(
    pattern: re.Pattern[str], text: str, offsets: Iterable[int]
) -> Iterator[re.Match[str]]:
    """`pattern.finditer(text)` for a pattern that can only match from one of `offsets`:
    the same matches, tried at those offsets only. Python's `re` has no fast scan for a
    pattern opening with `\\b` and a list of words (~0.1-0.6 ms over an atom's text); the
    words found with `str.find` first, a match is tried a few times instead."""
    end = -1
    for at in sorted(offsets):
        if at < end:
            continue  # finditer goes on after the end of the last match
        found = pattern.match(text, at)
        if found is not None:
            yield found
            end = found.end()
