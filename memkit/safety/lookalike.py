"""Text as a reader takes it, for checks that an atom's text cannot fool with lookalikes.

A model reads `\\ufe64/memkit-memory\\ufe65` (small less-than), `</memkit\\u200b-memory>` (a
zero-width space), `&lt;/memkit-memory&gt;`, `memkit\\u2010memory` (a Unicode hyphen) or a tag
split over two lines as the tag they imitate. So the checks look at a normalised view: HTML
entities decoded, NFKC (compatibility forms: fullwidth and small signs), format characters
(Unicode category Cf: zero-width, bidi controls, soft hyphen) removed, every dash and a few
angle brackets and slashes drawn alike folded to `-`, `<` and `/`, and, for tags, white space
(line breaks included) left out. Each character of a view knows the offset in the original
text it came from, so a finding names the right place and a fix touches the right character.

Standard library only, no `re` (the hook's fast path imports this through the fence).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Iterator

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"html.entities"}


# Drawn like `<` or `/` without NFKC saying so; `‹` (U+2039), what the fence turns `<` into,
# is not among them.
_LIKE = {
    **dict.fromkeys("\u02c2\u1438\u2329\u276c\u276e\u27e8\u29fc\u3008", "<"),
    **dict.fromkeys("\u2044\u2215\u2571\u29f8", "/"),
    **dict.fromkeys("\u02d7\u2043\u2212\u2796", "-"),
}


class _Fold(dict[int, "str | int | None"]):
    """A `str.translate` table filled on first sight of each character: its NFKC form, format
    characters removed, dashes and the lookalikes above folded (one character at a time:
    composing a letter with a following accent changes nothing a check looks for)."""

    def __missing__(self, code: int) -> str | int | None:
        char = chr(code)
        out = []
        for made in unicodedata.normalize("NFKC", char) if code > 0x7F else char:
            if made in _LIKE:
                out.append(_LIKE[made])
            elif made > "\x7f":
                category = unicodedata.category(made)
                if category != "Cf":
                    out.append("-" if category == "Pd" else made)
            else:
                out.append(made)
        folded = "".join(out)
        value: str | int | None = code if folded == char else (folded or None)
        self[code] = value
        return value


_FOLD = _Fold()
_ENTITY_MAX = 32  # `&CounterClockwiseContourIntegral;` is the longest name, 33 with `&`


def _entity(text: str, at: int) -> tuple[str, int] | None:
    """The character(s) an HTML entity starting at `text[at] == "&"` stands for, and its
    length; None when it is no entity."""
    end = at + 1
    if text.startswith("#", end):
        end += 1
        hexa = text[end : end + 1] in ("x", "X")
        end += hexa
        digits = "0123456789abcdefABCDEF" if hexa else "0123456789"
        start = end
        while end < len(text) and end - start < 8 and text[end] in digits:
            end += 1
        if end == start:
            return None
        code = int(text[start:end], 16 if hexa else 10)
        end += text.startswith(";", end)
        if not 0 < code <= 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            return None
        return chr(code), end - at
    while (
        end < len(text) and end - at < _ENTITY_MAX and text[end].isascii() and text[end].isalnum()
    ):
        end += 1
    if end == at + 1:
        return None
    from html.entities import html5

    name = text[at + 1 : end]
    if text.startswith(";", end) and name + ";" in html5:
        return html5[name + ";"], end + 1 - at
    # A few entities are also read without their `;` (`&lt`): the longest such prefix.
    for stop in range(len(name), 1, -1):
        if name[:stop] in html5:
            return html5[name[:stop]], stop + 1
    return None


def fold_char(char: str) -> str:
    """One character as `normalised` reads it ("" for a format character)."""
    value = _FOLD[ord(char)]
    return chr(value) if isinstance(value, int) else value or ""


def normalised(text: str, chars: Iterable[str] | None = None) -> str:
    """`text` as the checks read it (white space kept): entities decoded, NFKC (a character
    at a time), format characters removed, dashes and lookalikes folded. `chars`: the
    characters of `text` that may change, when the caller found them faster (default: every
    character outside ASCII)."""
    if "&" in text:
        text = _decoded(text)
        chars = None
    if text.isascii():
        return text  # NFKC leaves ASCII alone, and no ASCII character is folded
    # Only the characters that change, each looked up once and replaced with `str.replace`:
    # NFKC of a whole CJK atom and `str.translate` both cost ~0.2 ms, this microseconds.
    changed = []
    for char in set(text) if chars is None else chars:
        if char > "\x7f" and (value := _FOLD[ord(char)]) != ord(char):
            changed.append((char, value if isinstance(value, str) else ""))
    for char, value in changed:
        text = text.replace(char, value)
    return text


def entities(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, what it stands for) of each HTML entity in `text`, in order."""
    at = text.find("&")
    while at >= 0:
        found = _entity(text, at)
        if found is None:
            at = text.find("&", at + 1)
            continue
        yield at, at + found[1], found[0]
        at = text.find("&", at + found[1])


def _decoded(text: str) -> str:
    """`text` with its HTML entities decoded (a `&` that starts none is kept)."""
    parts: list[str] = []
    done = 0
    for start, end, char in entities(text):
        parts += (text[done:start], char)
        done = end
    return "".join(parts) + text[done:] if parts else text


def view(text: str, *, keep_space: bool, lower: bool = False) -> tuple[str, list[int]]:
    """`text` normalised as `normalised` does it, one character at a time (white space left
    out unless `keep_space`; lower-cased when `lower`), and for each character of the result
    the offset in `text` of the character or entity it came from."""
    out: list[str] = []
    origin: list[int] = []
    at = 0
    while at < len(text):
        char = text[at]
        step = 1
        if char == "&" and (found := _entity(text, at)) is not None:
            char, step = found
        if len(char) == 1:
            value = _FOLD[ord(char)]
            piece = chr(value) if isinstance(value, int) else value or ""
        else:  # an entity standing for two characters
            piece = normalised(char)
        if lower:
            piece = piece.lower()
        for made in piece:
            if keep_space or not made.isspace():
                out.append(made)
                origin.append(at)
        at += step
    return "".join(out), origin


def span_of(text: str, at: int) -> int:
    """The length of what starts at `text[at]` in a view: one character, or an entity."""
    found = _entity(text, at) if text[at] == "&" else None
    return found[1] if found is not None else 1


def tag_starts(text: str, name: str = "memkit-") -> list[int]:
    """Offsets in `text` of the `<` (or what a reader takes for one) of every tag-like `<name`
    or `</name`, lookalikes included: `name` lower-case, `/` and white space (line breaks,
    zero-width characters) allowed between `<` and the name, within a few dozen characters.

    Only the places that can start a tag are looked at (a `<`, a character drawn like one, an
    entity for one), each in a short window: the hook client checks every answer with this,
    and normalising a whole answer would cost it milliseconds."""
    out = []
    for start in _LESS_THAN:
        at = text.find(start)
        while at >= 0:
            if _opens(text, at, name):
                out.append(at)
            at = text.find(start, at + 1)
    return sorted(out)


_LESS_THAN = "<&" + "".join(
    sorted({c for c, v in _LIKE.items() if v == "<"} | {"\ufe64", "\uff1c"})
)
_WINDOW = 64  # characters after a `<` in which the name may start


def _opens(text: str, at: int, name: str) -> bool:
    if text[at] == "&":
        found = _entity(text, at)
        if found is None or normalised(found[0]) != "<":
            return False  # `&&`, `&amp;`: no tag starts here
    window = text[at : at + _WINDOW]
    if window.isascii() and "&" not in window:
        compact = "".join(window.lower().split())
    else:
        compact = view(window, keep_space=False, lower=True)[0]
    return compact.startswith("<") and compact[1:].lstrip("/").startswith(name)
