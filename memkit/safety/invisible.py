"""Characters nobody sees: which hide something, which came along with pasted text (issue 39).

Zero-width spaces and joiners, word joiners, soft hyphens and left-to-right marks come with text
copied from web pages and PDFs: 5 of 8,300 public encyclopedia and abstract paragraphs hold
one. Between words, or inside an ordinary word, they hide nothing; memkit leaves them out of
what it writes (`memkit add`, MCP `save`, capture, import) and says so (MK113, a warning).

Refused (MK112) are the ones that hide text or split what a check reads:
- tag characters (U+E0000–E007F), which spell text a model reads and a person never sees;
- bidi controls (U+202A–202E, U+2066–2069), which reorder what a reviewer sees;
- three or more in a row (text hidden in their pattern);
- one inside a word that a check looks for (`ig\u200bnore`, `pass\u200bword`, `memkit`).

A zero-width joiner inside an emoji and a joiner or non-joiner between letters of a script that
writes with them (Persian, Arabic, Indic) are how those are written, and are left alone. A byte
order mark at the very start of a file is how some editors begin UTF-8.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_RUN = re.compile(
    "[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]+"
)
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_JOINERS = frozenset("\u200c\u200d")
# Zero-width spaces and joiners: three of them in a line are no accident of pasting (a left-to-
# right mark or a soft hyphen is: PDFs and web pages hold one every few words).
_SPACES = frozenset("\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff")
# Words the checks look for: an invisible character inside one of them is there to split it.
KEYWORDS = (
    "ignore",
    "disregard",
    "instruction",
    "previous",
    "prior",
    "system",
    "assistant",
    "prompt",
    "password",
    "passwd",
    "secret",
    "token",
    "credential",
    "memkit",
    "claude",
    "override",
    "forget",
    "bypass",
    "reveal",
    "exfiltrat",
    "curl",
    "wget",
    "sudo",
    "verify",
    "review",
    "private",
    "apikey",
    "bearer",
)
_CONTEXT = 32


@dataclass(frozen=True)
class Invisible:
    start: int
    end: int
    what: str
    refuse: bool


def _letters_before(text: str, at: int) -> str:
    start = at
    while start > 0 and at - start < _CONTEXT and text[start - 1].isalpha():
        start -= 1
    return text[start:at]


def _letters_after(text: str, at: int) -> str:
    end = at
    while end < len(text) and end - at < _CONTEXT and text[end].isalpha():
        end += 1
    return text[at:end]


def _emoji_or_script(before: str, after: str, text: str, start: int, end: int) -> bool:
    """A joiner in an emoji sequence, or between letters of a script written with joiners."""
    left = text[start - 1] if start else ""
    right = text[end] if end < len(text) else ""
    if left and right and (ord(left) > 0x2000 and not left.isalpha()) and not right.isascii():
        return True  # 👨‍👩: symbols on both sides
    return bool(before and after) and not (before[-1].isascii() or after[0].isascii())


def classify(text: str) -> list[Invisible]:
    """Every run of invisible characters in `text` with what it is (one pass over the text)."""
    found = []
    for m in _RUN.finditer(text):
        run = m.group(0)
        start, end = m.start(), m.end()
        if start == 0 and run == "\ufeff":
            continue  # a byte order mark
        code = f"U+{ord(run[0]):04X}"
        if any("\U000e0000" <= c <= "\U000e007f" for c in run):
            found.append(
                Invisible(start, end, "invisible tag characters (text a reader never sees)", True)
            )
            continue
        if any(c in _BIDI for c in run):
            found.append(
                Invisible(start, end, f"bidi control {code} (reorders what a reviewer sees)", True)
            )
            continue
        if len(run) >= 3:
            found.append(
                Invisible(
                    start, end, f"{len(run)} invisible characters in a row (can hide text)", True
                )
            )
            continue
        before, after = _letters_before(text, start), _letters_after(text, end)
        if set(run) <= _JOINERS and _emoji_or_script(before, after, text, start, end):
            continue
        word = (before + after).lower()
        if before and after and any(k in word for k in KEYWORDS):
            found.append(
                Invisible(
                    start, end, f"invisible character {code} splits a word the checks read", True
                )
            )
            continue
        found.append(Invisible(start, end, f"invisible character {code}", False))
    return _sprinkled(text, found)


def _sprinkled(text: str, found: list[Invisible]) -> list[Invisible]:
    """Three or more in one line are no accident of pasting: they mark or hide something."""
    out: list[Invisible] = []
    line: list[Invisible] = []
    line_end = -1

    def flush() -> None:
        harmless = [i for i in line if not i.refuse and text[i.start] in _SPACES]
        if len(harmless) >= 3:
            what = f"{len(harmless)} invisible characters in one line (can hide text)"
            line[:] = [Invisible(i.start, i.end, what, True) if not i.refuse else i for i in line]
        out.extend(line)
        line.clear()

    for inv in found:
        if inv.start > line_end:
            flush()
            line_end = text.find("\n", inv.start)
            line_end = len(text) if line_end < 0 else line_end
        line.append(inv)
    flush()
    return out


def refusals(text: str) -> list[Invisible]:
    return [i for i in classify(text) if i.refuse]


def harmless(text: str) -> list[Invisible]:
    return [i for i in classify(text) if not i.refuse]


def without_harmless(text: str) -> str:
    """`text` without the invisible characters that hide nothing (what memkit writes)."""
    found = harmless(text)
    if not found:
        return text
    parts, done = [], 0
    for inv in found:
        parts.append(text[done : inv.start])
        done = inv.end
    return "".join(parts) + text[done:]
