"""An atom's Markdown body as sections and bullets, with the file line of each.

mistune gives the structure but no positions; a light line scanner that knows the same block
syntax (ATX/setext headings, list markers, fenced code) supplies the lines, and the two are
matched in document order. Reports must point at real lines, so the scanner, not a guess,
decides where a heading or bullet starts.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from memkit.atom import Bullet, Section

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


def _norm(text: str) -> str:
    return _SPACES.sub(" ", re.sub(r"[`*_~\[\]()<>#]", "", text)).strip().lower()


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


@functools.cache
def _markdown() -> Callable[[str], Any]:
    # Made once: building the parser costs a third of parsing a typical atom.
    import mistune  # noqa: PLC0415  (kept off the Claude Code hot path)

    return mistune.create_markdown(renderer=None)


def parse_sections(body: str, first_line: int) -> tuple[Section, ...]:
    """Split `body` into sections; `first_line` is the file line the body starts on."""
    tokens = _markdown()(body)
    if not isinstance(tokens, list):  # renderer=None always gives the AST list
        return ()
    lines = body.split("\n")
    marks = _scan(lines)
    cursor = 0
    headings: list[tuple[int, int, str]] = []  # (body line, level, text)
    items: list[tuple[int, str]] = []
    for kind, text, level in _walk(tokens):
        want = _norm(text)
        found = None
        for j in range(cursor, len(marks)):
            have = _norm(marks[j].text)[:40]
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
