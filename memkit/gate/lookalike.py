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

# Drawn like `<` or `/` without NFKC saying so; `‹` (U+2039), what the fence turns `<` into,
# is not among them.
_LIKE = {
    **dict.fromkeys("\u02c2\u1438\u2329\u276c\u276e\u27e8\u29fc\u3008", "<"),
    **dict.fromkeys("\u2044\u2215\u2571\u29f8", "/"),
    **dict.fromkeys("\u02d7\u2043\u2212\u2796", "-"),
}


class _Fold(dict[int, "str | int | None"]):
    """A `str.translate` table filled on first sight of each character: format characters
    removed, dashes and the lookalikes above folded, anything else kept."""

    def __missing__(self, code: int) -> str | int | None:
        char = chr(code)
        value: str | int | None = code
        if char in _LIKE:
            value = _LIKE[char]
        elif code > 0x7F:
            category = unicodedata.category(char)
            if category == "Cf":
                value = None
            elif category == "Pd":
                value = "-"
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
    from html.entities import html5  # noqa: PLC0415  (only for text with an entity in it)

    name = text[at + 1 : end]
    if text.startswith(";", end) and name + ";" in html5:
        return html5[name + ";"], end + 1 - at
    # A few entities are also read without their `;` (`&lt`): the longest such prefix.
    for stop in range(len(name), 1, -1):
        if name[:stop] in html5:
            return html5[name[:stop]], stop + 1
    return None


def normalised(text: str) -> str:
    """`text` as the checks read it (white space kept): entities decoded, NFKC, format
    characters removed, dashes and lookalikes folded."""
    if "&" in text:
        text = _decoded(text)
    return unicodedata.normalize("NFKC", text).translate(_FOLD)


def _decoded(text: str) -> str:
    """`text` with its HTML entities decoded (a `&` that starts none is kept)."""
    parts: list[str] = []
    done = 0
    at = text.find("&")
    while at >= 0:
        found = _entity(text, at)
        if found is None:
            at = text.find("&", at + 1)
            continue
        parts += (text[done:at], found[0])
        done = at + found[1]
        at = text.find("&", done)
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
        piece = unicodedata.normalize("NFKC", char).translate(_FOLD)
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
    or `</name`, lookalikes included: `name` lower-case, one or more `/` and any white space
    allowed between `<` and the name."""
    lowered = text.lower()
    plain = text.isascii() and "&" not in text
    if plain and name not in lowered:
        if name not in "".join(lowered.split()):
            return []
    elif name not in "".join(normalised(text).lower().split()):
        return []
    seen, origin = view(text, keep_space=False, lower=True)
    out: list[int] = []
    at = seen.find(name)
    while at >= 0:
        i = at - 1
        while i >= 0 and seen[i] == "/":
            i -= 1
        if i >= 0 and seen[i] == "<" and (not out or out[-1] != origin[i]):
            out.append(origin[i])
        at = seen.find(name, at + 1)
    return out
