"""`memkit import claude-md`: CLAUDE.md files, `.claude/rules/*.md` (with `paths:`) and Claude
Code's auto-memory topic files (frontmatter `name`, `description`, `type`).

A folder is searched for CLAUDE.md (at any depth, as monorepos keep them), `.claude/CLAUDE.md`
and `.claude/rules/**/*.md`; an auto-memory folder (`~/.claude/projects/<p>/memory/`) gives
its topic files. CLAUDE.local.md is one person's notes: only imported when named.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from memkit.importers import Candidate, Collected, Unimported
from memkit.importers.rules import (
    ATOM_OVERHEAD,
    file_candidates,
    meta_type,
    path_globs,
    sources,
)
from memkit.importers.source import SourceText

FORMAT = "claude-md"
# Claude Code's auto-memory types and the memkit types they are.
AUTO_MEMORY_TYPES = {
    "feedback": "preference",
    "user": "preference",
    "project": "fact",
    "reference": "fact",
}
_LINK_LINE = re.compile(r"^\s*[-*]\s*\[[^\]]+\]\([^)]+\.md\)")


def _choose(found: Path, rel: str, folder: Path) -> bool | tuple[str, str]:
    if folder.name == "memory" and (folder / "MEMORY.md").is_file():  # auto memory
        return found.parent == folder and found.suffix == ".md" and found.name != "MEMORY.md"
    if found.name == "CLAUDE.local.md":
        return (
            "personal",
            "is one person's notes (CLAUDE.local.md); import it by name, with --scope personal",
        )
    in_rules = rel.startswith(".claude/rules/") or "/.claude/rules/" in rel
    return found.name == "CLAUDE.md" or (found.suffix == ".md" and in_rules)


def _is_index(src: SourceText) -> bool:
    lines = [line for line in src.body.split("\n") if line.strip() and not line.startswith("#")]
    return bool(lines) and sum(bool(_LINK_LINE.match(x)) for x in lines) * 2 >= len(lines)


def _auto_memory(src: SourceText, max_lines: int, forced_type: str | None) -> Collected:
    """A topic file of Claude Code's auto memory: one memory, one atom."""
    out = Collected(files=1)
    text = src.body.strip()
    if not text:
        out.unimported.append(Unimported(src.shown, "empty", "has no text below its frontmatter"))
        return out
    kind = str(src.meta.get("type") or "")
    title = str(src.meta.get("description") or src.meta.get("name") or "").strip() or None
    too_long = text.count("\n") + 1 > max_lines - ATOM_OVERHEAD
    first = next(i for i, line in enumerate(src.body.split("\n")) if line.strip())
    out.candidates.append(
        Candidate(
            format=FORMAT,
            source=src.shown,
            line=src.body_line + first,
            text=text,
            type=forced_type or meta_type(kind) or AUTO_MEMORY_TYPES.get(kind, "fact"),
            title=title,
            refusal="too-long" if too_long else "",
            refusal_message=f"is longer than one atom may be ({max_lines} lines)"
            if too_long
            else "",
        )
    )
    return out


def collect(
    paths: Sequence[Path],
    *,
    max_lines: int,
    encoding: str | None = None,
    forced_type: str | None = None,
) -> Collected:
    out = Collected()
    for src in sources(paths, out, _choose, keep_hidden=(".claude",), encoding=encoding):
        if src.path.name == "MEMORY.md" and _is_index(src):
            out.files += 1
            out.unimported.append(
                Unimported(
                    src.shown,
                    "index",
                    "is the auto-memory index (links to topic files); import the memory "
                    "folder to get the topic files",
                )
            )
            continue
        if "name" in src.meta or str(src.meta.get("type") or "") in AUTO_MEMORY_TYPES:
            out.extend(_auto_memory(src, max_lines, forced_type))
            continue
        globs = path_globs(src.meta.get("paths") or src.meta.get("globs"))
        description = str(src.meta.get("description") or "").strip()
        out.extend(
            file_candidates(
                src,
                FORMAT,
                max_lines=max_lines,
                paths=globs,
                description=description,
                forced_type=forced_type,
            )
        )
    return out
