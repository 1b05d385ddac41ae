"""An atom's Markdown body as sections and bullets, with the file line of each.

mistune gives the structure but no positions; a light line scanner that knows the same block
syntax (ATX/setext headings, list markers, fenced code) supplies the lines, and the two are
matched in document order. Reports must point at real lines, so the scanner, not a guess,
decides where a heading or bullet starts.

Most atoms use a plain subset of Markdown (ATX headings, flat lists, paragraphs, fenced
code): for those, `_plain_walk` reads the same headings and items, with the same text, from
the lines alone, ~10x faster than mistune's block parser; anything else (quotes, HTML,
indentation, setext headings, …) goes to mistune. tests/atom/markdown_test.py compares both.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from memkit.atom import Bullet, Section

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"mistune"}


_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ITEM = re.compile(r"^([ \t]*)(?:[-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class _Mark:
    kind: str  # "heading" | "item"
    line: int  # 0-based line within the body
    text: str


_MARKUP = str.maketrans("", "", "`*_~[]()<>#")


def _norm(text: str) -> str:
    return " ".join(text.translate(_MARKUP).split()).lower()


def _scan(lines: list[str]) -> list[_Mark]:
    marks: list[_Mark] = []
    fence: str | None = None
    prev_para = False
    for i, line in enumerate(lines):
        m = _FENCE.match(line)
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            prev_para = False
            continue
        if (s := _SETEXT.match(line)) and prev_para:
            # "text\n---" is a setext heading: it starts on the line before.
            marks.append(_Mark("heading", i - 1, lines[i - 1].strip()))
            prev_para = False
            continue
        if a := _ATX.match(line):
            marks.append(_Mark("heading", i, a.group(2) or ""))
            prev_para = False
            continue
        if it := _ITEM.match(line):
            marks.append(_Mark("item", i, it.group(2) or ""))
            prev_para = False
            continue
        prev_para = bool(line.strip()) and not s
    return marks


def _plain(tokens: list[dict[str, Any]]) -> str:
    out: list[str] = []
    for tok in tokens:
        if "raw" in tok and tok["type"] != "block_code":
            out.append(str(tok["raw"]))
        elif tok["type"] in ("softbreak", "linebreak"):
            out.append(" ")
        if tok["type"] != "list" and "children" in tok:
            out.append(_plain(tok["children"]))
    return "".join(out)


def _walk(tokens: list[dict[str, Any]]) -> Iterator[tuple[str, str, int]]:
    """Headings and list items in document order: (kind, plain text, heading level)."""
    for tok in tokens:
        kind = tok["type"]
        if kind == "heading":
            yield "heading", _plain(tok.get("children", [])), int(tok["attrs"]["level"])
        elif kind == "list_item":
            own = [t for t in tok.get("children", []) if t["type"] != "list"]
            yield "item", _plain(own), 0
            yield from _walk([t for t in tok.get("children", []) if t["type"] == "list"])
        elif "children" in tok:
            yield from _walk(tok["children"])


# Outside fences, a line that starts with one of these may open a block the plain walk does
# not model (a quote, HTML, a table row, a link definition, indentation, a setext line).
_OTHER_BLOCK = frozenset(" >|<[=")
_ODD_SPACE = re.compile(r"[^\S \n]")  # tabs, form feeds, CR, no-break spaces: mistune's job
_BREAK = re.compile(r"^(?:([-*_])(?:[ ]*\1){2,}[ ]*|=+[ ]*|-+[ ]*)$")  # rule or setext line
_OPEN_FENCE = re.compile(r"^(`{3,}|~{3,})(.*)$")
_LIST_ITEM = re.compile(r"^([-*+]|(\d{1,9})[.)])( {1,4})(\S.*)$")
_MARKER = re.compile(r"^(?:[-*+]|\d{1,9}[.)])(?: |$)")
# Inline syntax (code, emphasis, links, HTML, escapes, entities): such text is rendered by
# mistune's inline parser, the block structure around it still read from the lines.
_INLINE = re.compile(r"[\\`*_\[\]<>!&~]")


def _inline_plain(lines: list[str]) -> str:
    """What `_plain` makes of a paragraph's (or heading's) inline content."""
    text = "\n".join(lines).strip(" \r\n\t\f")
    if not _INLINE.search(text):
        return " ".join(line.strip(" ") for line in text.split("\n"))  # soft breaks
    parser = _markdown_parser()
    return _plain(parser.inline(text, parser.block.state_cls().env))


def _plain_walk(
    body: str, lines: list[str]
) -> tuple[list[tuple[str, str, int]], list[_Mark]] | None:
    """What `_walk` yields for a body, read from its lines, and what `_scan` marks in them;
    None when the body uses Markdown beyond the plain subset (then mistune parses it)."""
    if "\r" in body or _ODD_SPACE.search(body):
        return None
    out: list[tuple[str, str, int]] = []
    marks: list[_Mark] = []
    item: list[str] | None = None  # the lines of the list item being read
    ordered = ""  # the delimiter of the current ordered list ("." or ")")
    prev = "blank"  # blank | para | item (its first line or a lazy one) | other
    fence = ""

    def close_item() -> None:
        nonlocal item
        if item is not None:
            out.append(("item", _inline_plain(item), 0))
            item = None

    for row, line in enumerate(lines):
        if fence:
            indent = len(line) - len(line.lstrip(" "))
            close = _OPEN_FENCE.match(line[indent:]) if indent <= 3 else None
            if (
                close is not None
                and close.group(1)[0] == fence[0]
                and len(close.group(1)) >= len(fence)
            ):
                if close.group(2).strip(" "):
                    return None  # the line scanner closes the fence here; CommonMark not
                fence = ""
                prev = "other"
            continue
        if not line.strip(" "):
            close_item()
            prev = "blank"
            continue
        first = line[0]
        if first == " " and prev == "item" and item is not None:
            inner = line.lstrip(" ")
            if inner[0] in _OTHER_BLOCK or inner[0] in "#`~" or _MARKER.match(inner):
                return None  # a block inside the item: mistune's job
            if _BREAK.match(inner):
                return None
            item.append(line)  # an indented continuation of the item's paragraph
            continue
        if first in _OTHER_BLOCK or _BREAK.match(line):
            return None
        if first in "`~" and (opened := _OPEN_FENCE.match(line)) is not None:
            if first == "`" and "`" in opened.group(2):
                return None
            close_item()
            fence, ordered = opened.group(1), ""
            prev = "other"
            continue
        if first == "#":
            heading = _ATX.match(line)
            if heading is None or not heading.group(2):
                return None
            close_item()
            out.append(("heading", _inline_plain([heading.group(2)]), len(heading.group(1))))
            marks.append(_Mark("heading", row, heading.group(2)))
            ordered = ""
            prev = "other"
            continue
        listed = _LIST_ITEM.match(line)
        if listed is not None:
            rest, number = listed.group(4), listed.group(2)
            if rest[0] in "#>`~<" or _MARKER.match(rest) or _BREAK.match(rest):
                return None
            delimiter = listed.group(1)[-1] if number is not None else ""
            continues = number is not None and delimiter == ordered
            if number not in (None, "1") and prev in ("para", "item") and not continues:
                return None  # cannot interrupt a paragraph: mistune decides what it is
            close_item()
            item = [rest]
            marks.append(_Mark("item", row, rest))
            ordered = delimiter
            prev = "item"
            continue
        if _MARKER.match(line):
            return None  # a list marker in a form not read here
        if prev == "item" and item is not None:
            item.append(line)  # a lazy continuation of the item's paragraph
            continue
        if prev == "blank":
            ordered = ""  # a paragraph after a blank line ends the list
        prev = "para"
    close_item()
    return out, marks


def _markdown_parser() -> Any:
    _markdown()
    return _PARSER[0]


_PARSER: list[Any] = []


@functools.cache
def _markdown() -> Callable[[str], Any]:
    # Made once: building the parser costs a third of parsing a typical atom.
    import mistune

    parser = mistune.create_markdown(renderer=None)
    _PARSER.append(parser)
    return parser


def parse_sections(body: str, first_line: int) -> tuple[Section, ...]:
    """Split `body` into sections; `first_line` is the file line the body starts on."""
    lines = body.split("\n")
    plain = _plain_walk(body, lines)
    if plain is not None:
        walked, marks = plain
    else:
        tokens = _markdown()(body)
        if not isinstance(tokens, list):  # renderer=None always gives the AST list
            return ()
        walked, marks = list(_walk(tokens)), _scan(lines)
    normed = [_norm(mark.text)[:40] for mark in marks]
    cursor = 0
    headings: list[tuple[int, int, str]] = []  # (body line, level, text)
    items: list[tuple[int, str]] = []
    for kind, text, level in walked:
        want = _norm(text)
        found = None
        for j in range(cursor, len(marks)):
            have = normed[j]
            if marks[j].kind == kind and (have.startswith(want[:40]) or want.startswith(have)):
                found = j
                break
        if found is None:  # mistune and the scanner disagree; keep the structure, skip the line
            continue
        cursor = found + 1
        if kind == "heading":
            headings.append((marks[found].line, level, text.strip()))
        else:
            items.append((marks[found].line, text.strip()))

    # Text before the first heading is a section with no heading (level 0).
    starts = [(0, 0, "")] if not headings or headings[0][0] > 0 else []
    starts += headings
    sections: list[Section] = []
    for n, (start, level, heading) in enumerate(starts):
        # A section's text runs to the next heading of any level, so sections never overlap.
        end = starts[n + 1][0] if n + 1 < len(starts) else len(lines)
        text = "\n".join(lines[start:end]).strip()
        if level == 0 and not text:
            continue
        bullets = tuple(
            Bullet(line=first_line + ln, text=t) for ln, t in items if start <= ln < end
        )
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1
        sections.append(
            Section(
                heading=heading,
                level=level,
                line=first_line + start,
                end_line=first_line + max(start, end - 1),
                text=text,
                bullets=bullets,
            )
        )
    return tuple(sections)
