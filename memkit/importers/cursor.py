"""`memkit import cursor-rules`: `.cursorrules` files and `.cursor/rules/*.mdc` (frontmatter
`description`, `globs`, `alwaysApply`).

`globs` become `paths` (a pattern without a folder, `*.ts`, matches at any depth, as in
Cursor); `description` becomes the title when the file is one rule, and context otherwise.
A folder is searched for `.cursorrules`, `*.mdc` and `.cursor/rules/**/*.md`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from memkit.importers import Collected
from memkit.importers.rules import file_candidates, path_globs, sources

FORMAT = "cursor-rules"


def _choose(found: Path, rel: str, folder: Path) -> bool:
    in_rules = rel.startswith(".cursor/rules/") or "/.cursor/rules/" in rel
    return (
        found.name == ".cursorrules"
        or found.suffix == ".mdc"
        or (found.suffix == ".md" and in_rules)
    )


def collect(
    paths: Sequence[Path],
    *,
    max_lines: int,
    encoding: str | None = None,
    forced_type: str | None = None,
) -> Collected:
    out = Collected()
    for src in sources(paths, out, _choose, keep_hidden=(".cursor",), encoding=encoding):
        globs = path_globs(src.meta.get("globs"), anywhere=True)
        if src.meta.get("alwaysApply") is True:
            globs = ()  # applies everywhere, whatever globs it also lists
        out.extend(
            file_candidates(
                src,
                FORMAT,
                max_lines=max_lines,
                paths=globs,
                description=str(src.meta.get("description") or "").strip(),
                forced_type=forced_type,
            )
        )
    return out
