"""Sentences and clauses of an atom's text, for the contradiction rules.

A full stop ends a sentence only when a space or the end follows it and the word before it is
not an abbreviation: `2.5`, `v1.2.3`, `config.yaml`, `e.g.` and `Dr.` stay whole, so no
fragment such as `5.` is ever compared on its own. CJK sentence punctuation (。！？；) ends a
sentence wherever it stands; so does a line break (a list item is a statement of its own).
"""

from __future__ import annotations

import functools
import re

from memkit.atom.text import plain_text

_ABBREVIATIONS = frozenset(
    (  # noqa: SIM905  (a word list reads better as text)
        "e.g i.e etc vs cf approx no nr dr mr mrs ms prof st jr sr inc ltd co corp dept est "
        "fig min max a.m p.m jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu "
        "fri sat sun"
    ).split()
)
_END = re.compile(r"[.!?;](?=\s|$)|[。！？；]|\n")
_CLAUSE = re.compile(r"[;；:：，,、]|\s[-–—]\s|\b(?:but|instead|whereas)\b|但是|而是|改為|改为")
_WORD_BEFORE = re.compile(r"([\w.]+)$")


@functools.lru_cache(maxsize=4096)  # asked for one atom's text once per pair it is judged in
def statement_text(title: str, body: str) -> str:
    """Title and body as plain text, one line per heading, paragraph or list item."""
    lines = [plain_text("", line) for line in body.splitlines() if not _cut_heading(line, body)]
    text = "\n".join(line for line in lines if line)
    if title and title not in text:
        shown = plain_text("", title)
        stem = shown.removesuffix("…").rstrip()
        if not (shown.endswith("…") and stem and stem in text):
            text = f"{shown}\n{text}"
    return text


def _cut_heading(line: str, body: str) -> bool:
    """A heading made from the first sentence and cut short (`memkit add` titles an atom so;
    Chinese has no space to cut at: "# … [https://nvie.com/posts/a-successf…"). It says
    nothing the body does not, and read again its cut value would be another value: a link
    "changed" between two copies of one line."""
    if not line.startswith("#") or not line.rstrip().endswith("…"):
        return False
    stem = line.lstrip("#").strip().removesuffix("…").rstrip()
    return len(stem) >= 8 and body.count(stem) >= 2


@functools.lru_cache(maxsize=65536)
def sentences(text: str) -> tuple[str, ...]:
    """The sentences of a text, cut once: the audit and the gate read one atom's text for
    each pair it is in, and the readers of several modules ask for the same text (a 256 KB
    atom of "e.g. e.g. …" was cut twelve times, a second of its commit). Only read, never
    changed."""
    return tuple(_sentences(text))


def _sentences(text: str) -> list[str]:
    out: list[str] = []
    start = 0
    for m in _END.finditer(text):
        if m.group(0) == ".":
            # Only the word right before the stop matters: look at a short tail, or a run of
            # abbreviations ("e.g. e.g. …") makes each look longer than the last.
            before = _WORD_BEFORE.search(text[max(start, m.start() - 40) : m.start()])
            word = before.group(1).lower() if before else ""
            # An abbreviation or an initial ("J. Smith") does not end a sentence.
            if word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
                continue
        piece = text[start : m.end()].strip()
        if piece:
            out.append(piece)
        start = m.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return [s for s in out if re.search(r"\w", s)]


def clauses(sentence: str) -> list[str]:
    """A sentence cut at commas, semicolons, colons, dashes and 'but': the unit of one
    instruction ("Always use pnpm, never npm" is two)."""
    return [c.strip() for c in _CLAUSE.split(sentence) if c and re.search(r"\w", c)]
