"""Cutting a rules document into pieces that each say one thing.

A line scanner (code fences, ATX/setext headings, list items with their continuation, tables,
quotes, paragraphs) turns the body into blocks with file lines; sections follow the headings.
Within a section, each item of a bullet list is one piece (one rule per atom); a numbered
list is kept whole (steps of one procedure), as are short lists (a stack, not rules) and the
prose, tables and code between lists. A heading inside a code fence is code, not a heading.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_ITEM = re.compile(r"^( {0,3})([-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
_RULE = re.compile(r"^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
_BOLD_LINE = re.compile(r"^\*\*[^*]+\*\*:?$|^__[^_]+__:?$")
SHORT_ITEM = 25  # a list whose items are mostly shorter is a list of names, kept whole


@dataclass
class Block:
    kind: str  # paragraph | list | code | table | quote
    line: int  # file line of the first line
    lines: list[str] = field(default_factory=list)
    items: list[tuple[int, list[str]]] = field(default_factory=list)  # lists: (line, lines)
    ordered: bool = False
    indent: int = 0  # lists: the indent of their items' markers

    @property
    def text(self) -> str:
        return "\n".join(self.lines).strip("\n")

    def is_label(self) -> bool:
        """A one-line paragraph that introduces what follows (`Testing:`, `**Testing**`)."""
        if self.kind != "paragraph" or len(self.lines) != 1:
            return False
        line = self.lines[0].strip()
        return len(line) <= 80 and (line.endswith(":") or bool(_BOLD_LINE.match(line)))


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    line: int


@dataclass(frozen=True)
class Piece:
    text: str
    line: int  # file line it starts on
    context: tuple[str, ...]  # headings above it, and the label that introduced its list
    heading: str = ""  # its section's heading when the piece is that whole section
    kind: str = "prose"  # item | prose | steps
    too_long: bool = False


def scan(body: str, first_line: int) -> list[Block | Heading]:
    """Blocks and headings of `body` in order; `first_line` is the body's first file line."""
    lines = body.split("\n")
    out: list[Block | Heading] = []
    i = 0
    current: Block | None = None

    def close() -> None:
        nonlocal current
        if current is not None:
            out.append(current)
            current = None

    while i < len(lines):
        line = lines[i]
        n = first_line + i
        if not line.strip():
            nxt = next((j for j in range(i + 1, len(lines)) if lines[j].strip()), None)
            if (
                current is None
                or current.kind != "list"
                or nxt is None
                or not _sibling(lines[nxt], current)
            ):
                close()
            i += 1
            continue
        if current is not None and current.kind == "list" and _sibling(line, current):
            current.lines.append(line)
            current.items.append((n, [line]))
            i = _item_body(lines, i + 1, current)
            continue
        close()
        if fence := _FENCE.match(line):
            block = Block("code", n, [line])
            i = _fenced(lines, i + 1, fence.group(1), [block.lines])
            out.append(block)
        elif atx := _ATX.match(line):
            out.append(Heading(len(atx.group(1)), (atx.group(2) or "").strip(), n))
            i += 1
        elif _RULE.match(line):
            i += 1
        elif item := _ITEM.match(line):
            current = Block("list", n, [line], [(n, [line])], item.group(2)[0].isdigit())
            current.indent = len(item.group(1))
            i = _item_body(lines, i + 1, current)
        else:
            i = _leaf(lines, i, first_line, out)
    close()
    return out


def _leaf(lines: list[str], i: int, first_line: int, out: list[Block | Heading]) -> int:
    """A paragraph, table or quote starting at line i (or a setext heading)."""
    first = lines[i].lstrip()
    kind = "table" if first.startswith("|") else "quote" if first.startswith(">") else "paragraph"
    block = Block(kind, first_line + i, [lines[i]])
    i += 1
    while i < len(lines):
        line = lines[i]
        if kind == "paragraph" and _SETEXT.match(line) and len(block.lines) == 1:
            level = 1 if line.strip().startswith("=") else 2
            out.append(Heading(level, block.lines[0].strip(), block.line))
            return i + 1
        stripped = line.lstrip()
        same = (
            stripped.startswith("|")
            if kind == "table"
            else stripped.startswith(">")
            if kind == "quote"
            else not stripped.startswith(("|", ">"))
        )
        if (
            not line.strip()
            or not same
            or _FENCE.match(line)
            or _ATX.match(line)
            or _ITEM.match(line)
            or _RULE.match(line)
        ):
            break
        block.lines.append(line)
        i += 1
    out.append(block)
    return i


def _fenced(lines: list[str], i: int, marker: str, sinks: list[list[str]]) -> int:
    """Lines up to and including the closing fence, appended to every sink."""
    while i < len(lines):
        for sink in sinks:
            sink.append(lines[i])
        m = _FENCE.match(lines[i])
        i += 1
        if m and m.group(1)[0] == marker[0] and len(m.group(1)) >= len(marker):
            break
    return i


def _sibling(line: str, block: Block) -> bool:
    m = _ITEM.match(line)
    return m is not None and len(m.group(1)) <= block.indent + 1


def _item_body(lines: list[str], i: int, block: Block) -> int:
    """Continuation of the list item just started: indented lines (nested lists and fences
    included), blank lines followed by more of them, lazy paragraph text; returns the index
    of the first line after the item."""
    item_lines = block.items[-1][1]
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            nxt = next((j for j in range(i + 1, len(lines)) if lines[j].strip()), None)
            if nxt is None or not lines[nxt].startswith((" ", "\t")) or _sibling(lines[nxt], block):
                return i
            block.lines.append(line)
            item_lines.append(line)
            i += 1
            continue
        if _sibling(line, block):
            return i
        indented = line.startswith((" ", "\t"))
        if not indented and (
            _FENCE.match(line)
            or _ATX.match(line)
            or _RULE.match(line)
            or line.startswith(("|", ">"))
            or not item_lines[-1].strip()
        ):
            return i
        block.lines.append(line)
        item_lines.append(line)
        i += 1
        if fence := _FENCE.match(line):
            i = _fenced(lines, i, fence.group(1), [block.lines, item_lines])
    return i


def item_text(item_lines: list[str]) -> str:
    """An item without its marker, its continuation dedented."""
    first = item_lines[0]
    m = _ITEM.match(first)
    width = m.end() if m else 0
    out = [first[width:].strip()]
    for line in item_lines[1:]:
        cut = len(line) - len(line.lstrip(" "))
        out.append(line[min(cut, width) :] if cut else line)
    return "\n".join(out).strip()


def _short_list(block: Block) -> bool:
    lengths = [len(item_text(lines).split("\n")[0]) for _, lines in block.items]
    return not lengths or statistics.median(lengths) < SHORT_ITEM


def _pieces_of_prose(
    blocks: list[Block], context: tuple[str, ...], heading: str, max_lines: int
) -> list[Piece]:
    """Consecutive non-rule blocks, one piece if they fit, else groups that do."""
    # A label that introduces nothing (the next block is another label, or there is none)
    # is an empty heading: it says nothing on its own.
    blocks = [
        b
        for i, b in enumerate(blocks)
        if not b.is_label() or (i + 1 < len(blocks) and not blocks[i + 1].is_label())
    ]
    if not blocks:
        return []
    groups: list[list[Block]] = [[]]
    for block in blocks:
        size = sum(len(b.lines) + 1 for b in groups[-1])
        if groups[-1] and size + len(block.lines) > max_lines:
            groups.append([])
        groups[-1].append(block)
    out = []
    for group in groups:
        text = "\n\n".join(b.text for b in group).strip()
        lines = text.count("\n") + 1
        steps = len(group) == 1 and group[0].kind == "list" and group[0].ordered
        out.append(
            Piece(
                text,
                group[0].line,
                context,
                heading if len(groups) == 1 else "",
                "steps" if steps else "prose",
                too_long=lines > max_lines,
            )
        )
    return out


def pieces(body: str, first_line: int, *, max_lines: int) -> list[Piece]:
    """The pieces of `body`, in order, each with the headings it sits under."""
    out: list[Piece] = []
    stack: list[Heading] = []
    section: list[Block] = []

    def flush() -> None:
        context = tuple(h.text for h in stack if h.text)
        heading = stack[-1].text if stack else ""
        found: list[Piece] = []
        prose: list[Block] = []
        label = ""
        for block in section:
            if block.kind == "list" and not block.ordered and not _short_list(block):
                if prose and prose[-1].is_label():
                    label = prose.pop().lines[0].strip().strip("*_").rstrip(":").strip()
                found += _pieces_of_prose(prose, context, "", max_lines)
                prose = []
                where = (*context, label) if label else context
                for line, lines in block.items:
                    text = item_text(lines)
                    if text:
                        n = text.count("\n") + 1
                        found.append(Piece(text, line, where, "", "item", n > max_lines))
                label = ""
            else:
                prose.append(block)
        whole = not found
        found += _pieces_of_prose(prose, context, heading if whole else "", max_lines)
        out.extend(found)
        section.clear()

    for part in scan(body, first_line):
        if isinstance(part, Heading):
            flush()
            while stack and stack[-1].level >= part.level:
                stack.pop()
            stack.append(part)
        else:
            section.append(part)
    flush()
    return out


def sections(body: str, first_line: int) -> list[tuple[Heading, str]]:
    """(heading, its text up to the next heading of any level) pairs; text before the first
    heading comes under a level-0 heading with no text."""
    out: list[tuple[Heading, list[str]]] = [(Heading(0, "", first_line), [])]
    for part in scan(body, first_line):
        if isinstance(part, Heading):
            out.append((part, []))
        else:
            out[-1][1].append(part.text)
    return [(h, "\n\n".join(texts).strip()) for h, texts in out]
