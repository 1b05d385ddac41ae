"""What CLAUDE.md files, `.claude/rules/` and Cursor rules have in common: a Markdown body of
rules, maybe scoped to paths, maybe with a description. This module turns one such file into
candidates: one per rule (a bullet), per procedure (numbered steps, a code block) or per
section of prose, typed by what the piece and its heading say.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from memkit.atom import TYPES
from memkit.importers import Candidate, Collected, Unimported
from memkit.importers.source import (
    SYMLINK_MESSAGE,
    SourceText,
    Unreadable,
    read_source,
    shown_path,
    walk,
)
from memkit.importers.split import Piece, pieces, sections

# Lines of an atom that are not the piece's text: frontmatter (up to ~12 keys), title, context.
ATOM_OVERHEAD = 18

_PITFALL = re.compile(
    r"\b(gotchas?|pitfalls?|caveats?|beware|careful|known (?:issue|bug)s?|workarounds?|"
    r"footguns?|trap)\b|注意|坑",
    re.I,
)
_DECISION = re.compile(r"\b(decisions?|decided|we chose|adrs?)\b", re.I)
_ARCHITECTURE = re.compile(
    r"\b(architecture|project structure|structure|layout|directory|folders?|components|"
    r"system design|overview)\b|架構|架构",
    re.I,
)
_PROCEDURE = re.compile(
    r"\b(setup|set up|install\w*|build\w*|run\w*|commands?|how to|steps?|getting started|"
    r"deploy\w*|releas\w*|workflows?)\b",
    re.I,
)
_BRACES = re.compile(r"\{([^{}]*)\}")
# A CLAUDE.md line that pulls in another file (`@docs/testing.md`), Cursor's `@file.ts`.
_REFERENCE = re.compile(r"^\s*(?:[-*]\s+)?@[\w./~-]+\s*$")
_FENCE_LINE = re.compile(r"^\s*(`{3,}|~{3,})")
# What a tool writes at the top of the file it makes (`claude /init`: "This file provides
# guidance to Claude Code (claude.ai/code) when working with code in this repository."): it
# speaks of the file and the agent, and is no rule of the team's.
_AGENT = r"(?:claude(?: code)?|cursor|copilot|(?:ai|coding) (?:agents?|assistants?)|agents?|llms?)"
_BOILERPLATE = re.compile(
    r"\bthis (?:file|document)\b[^.]{0,80}?\b(?:guidance|instructions|context|rules)\b[^.]{0,40}?"
    rf"\b{_AGENT}\b|\bguidance (?:to|for) {_AGENT}\b[^.]{{0,80}}\bwhen working with\b",
    re.I,
)
BOILERPLATE_MAX = 400  # characters: a longer piece says more than what the file is


def guess_type(piece: Piece) -> str:
    """The atom type a piece most likely is; `preference` (a convention) when nothing says
    otherwise. Sensitive types (architecture, decision) go to review like any `memkit add`."""
    heading = " ".join(piece.context)
    if piece.kind == "steps":
        return "procedure"
    if _PITFALL.search(piece.text) or _PITFALL.search(heading):
        return "pitfall"
    if _DECISION.search(heading):
        return "decision"
    if piece.kind == "prose" and _ARCHITECTURE.search(heading):
        return "architecture"
    if _PROCEDURE.search(heading) and ("`" in piece.text or piece.kind == "prose"):
        return "procedure"
    return "preference"


def expand_braces(pattern: str) -> list[str]:
    """`src/**/*.{ts,tsx}` → both patterns: memkit's path globs have no braces."""
    m = _BRACES.search(pattern)
    if m is None:
        return [pattern]
    out: list[str] = []
    for option in m.group(1).split(","):
        out += expand_braces(pattern[: m.start()] + option.strip() + pattern[m.end() :])
    return out


def _split_commas(text: str) -> list[str]:
    """Comma-separated patterns; a comma inside `{a,b}` belongs to its pattern."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch == "{") - (ch == "}")
        if ch == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return out


def path_globs(value: object, *, anywhere: bool = False) -> tuple[str, ...]:
    """Globs from `paths:`/`globs:` as files write them: a YAML list, or one string of
    comma-separated patterns. `anywhere` makes a pattern without a folder match at any depth
    (Cursor's `*.ts` is every TypeScript file)."""
    items: Iterable[object]
    if isinstance(value, str):
        items = _split_commas(value)
    elif isinstance(value, list):
        items = [p for v in value for p in (_split_commas(v) if isinstance(v, str) else [v])]
    else:
        return ()
    out: list[str] = []
    for item in items:
        pattern = str(item).strip().strip("'\"").strip()
        if not pattern:
            continue
        for expanded in expand_braces(pattern):
            one = expanded.removeprefix("./")
            if anywhere and "/" not in one and not one.startswith("**"):
                one = f"**/{one}"
            if one not in out:
                out.append(one)
    return tuple(out)


def _title(piece: Piece) -> str | None:
    if piece.heading:
        return piece.heading
    # A piece that starts with code, a table or a list has no first sentence worth a title.
    if piece.text.lstrip().startswith(("```", "~~~", "|", "- ", "* ", "1.")) and piece.context:
        return piece.context[-1]
    return None


_REFERENCE_MESSAGE = "only names another file (`@path`); import that file by name"


def _refusal(piece: Piece, max_lines: int) -> tuple[str, str]:
    """Why a piece cannot be an atom at all, before any check: ('', '') when it can."""
    if piece.too_long:
        return "too-long", (
            f"is longer than one atom may be ({max_lines} lines, limits.atom_lines); "
            "split it into sections with headings"
        )
    if is_boilerplate(piece.text):
        return "boilerplate", "is what a tool writes at the top of the file, not a rule"
    return "", ""


def file_candidates(
    src: SourceText,
    fmt: str,
    *,
    max_lines: int,
    paths: Sequence[str] = (),
    description: str = "",
    forced_type: str | None = None,
) -> Collected:
    """The candidates of one rules file whose frontmatter the caller has read."""
    out = Collected(files=1)
    if src.generated:
        out.unimported.append(
            Unimported(src.shown, "generated", "was written by `memkit export`; not imported")
        )
        return out
    body, references = split_references(src.body, src.body_line)
    found = pieces(body, src.body_line, max_lines=max_lines - ATOM_OVERHEAD)
    empty = empty_headings(body, src.body_line)
    if not found and not references:
        reason, message = (
            ("headings-only", "has only headings, no text under them")
            if empty
            else ("empty", "has no rules")
        )
        out.unimported.append(Unimported(src.shown, reason, message))
        return out
    single = len(found) == 1
    for piece in found:
        title = description if single and description else _title(piece)
        refusal, message = _refusal(piece, max_lines)
        out.candidates.append(
            Candidate(
                format=fmt,
                source=src.shown,
                line=piece.line,
                text=piece.text,
                type=forced_type or guess_type(piece),
                title=title,
                paths=tuple(paths),
                refusal=refusal,
                refusal_message=message,
                project=src.project,
            )
        )
    # Lines that are no rule, each said in the report: `@path` references (refused: the file
    # they name is what to import) and headings with nothing under them (skipped).
    said = [(line, text, "reference", _REFERENCE_MESSAGE) for line, text in references]
    said += [
        (line, heading, "headings-only", f"the heading `{heading}` has no text under it")
        for line, heading in empty
    ]
    for line, text, reason, message in said:
        out.candidates.append(
            Candidate(
                fmt,
                src.shown,
                line,
                text,
                "fact",
                refusal=reason,
                refusal_message=message,
                project=src.project,
            )
        )
    out.candidates.sort(key=lambda c: c.line)
    return out


def split_references(body: str, first_line: int) -> tuple[str, list[tuple[int, str]]]:
    """`body` with its `@path` lines (outside code) made empty, and those lines with their
    file line numbers: such a line pulls in another file, it is no part of the rule above."""
    lines = body.split("\n")
    found: list[tuple[int, str]] = []
    fence: str | None = None
    for i, line in enumerate(lines):
        m = _FENCE_LINE.match(line)
        if fence is None and m:
            fence = m.group(1)
        elif fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
        elif _REFERENCE.match(line):
            found.append((first_line + i, line.strip().lstrip("-* ").strip()))
            lines[i] = ""
    return "\n".join(lines), found


def empty_headings(body: str, first_line: int) -> list[tuple[int, str]]:
    """Headings with nothing under them, not even a deeper heading that has text."""
    found = sections(body, first_line)
    out = []
    for i, (heading, text) in enumerate(found):
        if not heading.text or text:
            continue
        nxt = found[i + 1][0] if i + 1 < len(found) else None
        if nxt is None or nxt.level <= heading.level:
            out.append((heading.line, heading.text))
    return out


def is_boilerplate(text: str) -> bool:
    """Text about the file itself and the agent that reads it, not a rule."""
    return len(text) <= BOILERPLATE_MAX and _BOILERPLATE.search(" ".join(text.split())) is not None


def read_or_report(path: Path, encoding: str | None, out: Collected) -> SourceText | None:
    """The file's text, or None after recording why it cannot be imported."""
    try:
        src = read_source(path, encoding=encoding)
    except Unreadable as exc:
        out.files += 1
        out.unimported.append(Unimported(shown_path(path), exc.reason, str(exc)))
        return None
    if src.meta_problem:
        out.files += 1
        out.unimported.append(Unimported(src.shown, "frontmatter", src.meta_problem))
        return None
    return src


# (file found, its path below the folder searched, that folder) → take it (True), pass it
# over (False), or leave it out with a (reason, message) the report shows.
Choice = Callable[[Path, str, Path], "bool | tuple[str, str]"]


def sources(
    paths: Sequence[Path],
    out: Collected,
    choose: Choice,
    *,
    keep_hidden: tuple[str, ...] = (),
    encoding: str | None = None,
) -> Iterator[SourceText]:
    """The files a format reads, read: those named (always taken) and those `choose` takes in
    the folders named. Missing paths, files left out and unreadable ones go to `out`."""
    files: list[Path] = []
    for path in paths:
        if path.is_file():
            files.append(path)
            continue
        if not path.is_dir():
            out.unimported.append(Unimported(path.as_posix(), "missing", "does not exist"))
            continue
        links: list[Path] = []
        for found in walk(path, keep_hidden=keep_hidden, links=links):
            verdict = choose(found, found.relative_to(path).as_posix(), path)
            if isinstance(verdict, tuple):
                out.files += 1
                out.unimported.append(Unimported(shown_path(found), *verdict))
            elif verdict:
                files.append(found)
        for link in links:
            # A link to a folder is never entered; a link to a file is said only when the
            # format would have read a file of that name.
            if link.is_dir() or choose(link, link.relative_to(path).as_posix(), path) is True:
                out.files += 1
                out.unimported.append(Unimported(shown_path(link), "symlink", SYMLINK_MESSAGE))
    for path in dict.fromkeys(files):
        src = read_or_report(path, encoding, out)
        if src is not None:
            yield src


def meta_type(value: object) -> str | None:
    """A memkit type named in a file's frontmatter, when it is one."""
    return value if isinstance(value, str) and value in TYPES else None
