"""Text as a reader reads it, for the checks of what an atom says to the agent (issue 39).

A model, and a person looking at a rendered page, read `ig**nore**`, `ig<b></b>nore`,
`i g n o r e`, `іgnore` (a Cyrillic і), `ｉｇｎｏｒｅ` and `&#105;gnore` as "ignore". So the order
and injection patterns run on a view of the text in which, one stage after the other:

1. HTML entities are decoded;
2. every character is taken in its NFKC form, format characters (zero-width, bidi controls,
   soft hyphen) are left out and dashes folded (`memkit.safety.lookalike`);
3. Cyrillic, Greek and Armenian letters drawn like Latin ones are read as those, in a word that
   mixes them with Latin letters, or in a short word of them in a text written in Latin letters;
4. emphasis marks (`*`, `**`, `~~`, `__`, `_` at a word's edge, a `_…_` pair closing at a
   word's end: `ig_nore_`) and inline HTML tags are left out;
5. single letters spaced out (`i g n o r e`, `I.g.n.o.r.e`, `忽 略 之 前`) are joined;
6. runs of blanks are one blank, and runs of blank lines one blank line.

Each stage reads its input once and records where each part of its output came from, so a hit
in the view names its place in the original text (`Reading.original`). Standard library only.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from memkit.safety.lookalike import entities, fold_char

# Letters of other scripts drawn like Latin ones (Unicode's confusables, the ones a model and a
# reader take for Latin letters in a Latin word).
CONFUSABLES = {
    **dict(zip("аеорсухіјѕԁһԛԝӏ", "aeopcyxijsdhqwl", strict=True)),
    **dict(zip("АВЕКМНОРСТХІЈЅҮ", "ABEKMHOPCTXIJSY", strict=True)),
    **dict(zip("αονικρυ", "aovikpu", strict=True)),
    **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZHIKMNOPTYX", strict=True)),
    **dict(zip("օսհ", "ouh", strict=True)),
}
_CONFUSABLE = re.compile("[" + "".join(CONFUSABLES) + "]")
_WORD = re.compile(r"[^\W\d_]+")
_LATIN = re.compile("[A-Za-z]")
_FOREIGN = re.compile("[\u0370-\u03ff\u0400-\u04ff\u0530-\u058f]")
# Inline formatting tags: `<b>`, `</span>`, `<span class="x">`; never across another `<` or a
# line. Other tags (`</system>`, memkit's own) stay: the checks look for them.
_TAG = re.compile(
    r"</?(?:b|i|u|s|em|strong|span|font|mark|small|big|sub|sup|del|ins|code|kbd|tt|wbr|abbr)"
    r"(?:\s[^<>\n]{0,200})?/?>",
    re.I,
)
# Emphasis marks: `**`, `~~`, `__` anywhere; `*` touching a letter; `_` at a word's edge, and
# the opening `_` of a pair that starts inside a word and closes at its end (`ig_nore_`: a
# model reads "ignore"; `snake_case` has no closing mark and stays).
_STARS = re.compile(r"\*{1,3}(?=\S)|(?<=\S)\*{1,3}|~~")
_UNDERSCORES = re.compile(
    r"__+|(?<![^\W_])_(?=[^\W\d_])|(?<=[^\W\d_])_(?=[^\W\d_]+_(?![^\W_]))"
    r"|(?<=[^\W\d_])_(?![^\W_])"
)
_SPACED = re.compile(r"(?<![^\W\d_])(?:[^\W\d_][ .\-·]){2,}[^\W\d_](?![^\W\d_])")
_SPACED_ASCII = re.compile(r"(?<![A-Za-z])(?:[A-Za-z][ .\-]){2,}[A-Za-z](?![A-Za-z])")
_SEPARATORS = re.compile(r"[ .\-·]")
_BLANKS = re.compile(r"[ \t]{2,}|\t|\n(?:[ \t]*\n){2,}")
_NOT_PLAIN = re.compile(
    "[^\x00-\x7f\u3041-\u3096\u30a1-\u30fa\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3]+"
)


@dataclass
class _Map:
    """Where each part of a stage's output came from: parts copied (offsets shift) or put in
    place of a span of the input (every character of it comes from the span's start)."""

    outs: list[int] = field(default_factory=list)
    ins: list[int] = field(default_factory=list)
    copied: list[bool] = field(default_factory=list)

    def back(self, at: int) -> int:
        i = bisect.bisect_right(self.outs, at) - 1
        if i < 0:
            return at
        return self.ins[i] + (at - self.outs[i] if self.copied[i] else 0)


class _Stage:
    """Builds a stage's output from its input, one replacement after another, in order."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.parts: list[str] = []
        self.map = _Map()
        self.done = 0
        self.size = 0

    def _add(self, text: str, origin: int, copied: bool) -> None:
        if text:
            self.map.outs.append(self.size)
            self.map.ins.append(origin)
            self.map.copied.append(copied)
            self.parts.append(text)
            self.size += len(text)

    def replace(self, start: int, end: int, new: str) -> None:
        if start > self.done:
            self._add(self.source[self.done : start], self.done, True)
        # One character for one (fullwidth letters): each keeps its own offset.
        self._add(new, start, len(new) == end - start)
        self.done = max(self.done, end)

    def finish(self) -> tuple[str, _Map | None]:
        if not self.map.outs:
            return self.source, None
        self._add(self.source[self.done :], self.done, True)
        return "".join(self.parts), self.map


@dataclass(frozen=True)
class Reading:
    """The view of a text the checks read, and the way back to the text's offsets."""

    text: str
    maps: tuple[_Map, ...] = ()

    def original(self, at: int) -> int:
        for stage in reversed(self.maps):
            at = stage.back(at)
        return at


def _entities(text: str) -> tuple[str, _Map | None]:
    if "&" not in text:
        return text, None
    stage = _Stage(text)
    for start, end, char in entities(text):
        stage.replace(start, end, char)
    return stage.finish()


def _folded(text: str) -> tuple[str, _Map | None]:
    if text.isascii():
        return text, None
    stage = _Stage(text)
    for m in _NOT_PLAIN.finditer(text):
        run = m.group(0)
        new = "".join(map(fold_char, run))
        if new == run:
            continue
        if len(new) == len(run) or len(run) == 1:
            stage.replace(m.start(), m.end(), new)
        else:  # a character that became two, or none: each in its own place
            for i, char in enumerate(run):
                stage.replace(m.start() + i, m.start() + i + 1, fold_char(char))
    return stage.finish()


def _confusables(text: str) -> tuple[str, _Map | None]:
    if text.isascii() or _CONFUSABLE.search(text) is None:
        return text, None
    latin_text = len(_LATIN.findall(text)) > len(_FOREIGN.findall(text))
    stage = _Stage(text)
    for m in _WORD.finditer(text):
        word = m.group(0)
        if _CONFUSABLE.search(word) is None:
            continue
        mixed = _LATIN.search(word) is not None
        alike = latin_text and len(word) <= 12 and all(c in CONFUSABLES for c in word)
        if mixed or alike:
            for i, c in enumerate(word):
                if c in CONFUSABLES:
                    stage.replace(m.start() + i, m.start() + i + 1, CONFUSABLES[c])
    return stage.finish()


def _markup(text: str) -> tuple[str, _Map | None]:
    if not any(c in text for c in "*_~<"):
        return text, None
    stage = _Stage(text)
    found = sorted(
        [
            *((m.start(), m.end()) for m in (_TAG.finditer(text) if "<" in text else ())),
            *(
                (m.start(), m.end())
                for m in (_STARS.finditer(text) if "*" in text or "~~" in text else ())
            ),
            *((m.start(), m.end()) for m in (_UNDERSCORES.finditer(text) if "_" in text else ())),
        ]
    )
    for start, end in found:
        if start >= stage.done:
            stage.replace(start, end, "")
    return stage.finish()


def _joined(text: str) -> tuple[str, _Map | None]:
    stage = _Stage(text)
    for m in (_SPACED_ASCII if text.isascii() else _SPACED).finditer(text):
        run = m.group(0)
        for sep in _SEPARATORS.finditer(run):
            stage.replace(m.start() + sep.start(), m.start() + sep.end(), "")
    return stage.finish()


def _blanks(text: str) -> tuple[str, _Map | None]:
    if "  " not in text and "\t" not in text and "\n\n\n" not in text and "\n \n" not in text:
        return text, None
    stage = _Stage(text)
    for m in _BLANKS.finditer(text):
        stage.replace(m.start(), m.end(), "\n\n" if "\n" in m.group(0) else " ")
    return stage.finish()


STAGES = (_entities, _folded, _confusables, _markup, _joined, _blanks)


def read(text: str) -> Reading:
    """`text` as a reader reads it (the stages above), with the way back."""
    maps = []
    for stage in STAGES:
        text, made = stage(text)
        if made is not None:
            maps.append(made)
    return Reading(text, tuple(maps))
