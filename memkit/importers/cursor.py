"""`memkit import cursor-rules`: `.cursorrules` files and `.cursor/rules/*.mdc` (frontmatter
`description`, `globs`, `alwaysApply`).

`globs` become `paths` (a pattern without a folder, `*.ts`, matches at any depth, as in
Cursor); `description` becomes the title when the file is one rule, and context otherwise.
A folder is searched for `.cursorrules`, `*.mdc` and `.cursor/rules/**/*.md`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from memkit.importers import Collected, Unimported
from memkit.importers.rules import file_candidates, path_globs, read_or_report
from memkit.importers.source import walk

FORMAT = "cursor-rules"


def discover(paths: Sequence[Path], out: Collected) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_file():
            files.append(path)
        elif not path.is_dir():
            out.unimported.append(Unimported(path.as_posix(), "missing", "does not exist"))
        else:
            for found in walk(path, keep_hidden=(".cursor",)):
                rel = found.relative_to(path).as_posix()
                if (
                    found.name == ".cursorrules"
                    or found.suffix == ".mdc"
                    or (
                        found.suffix == ".md"
                        and (rel.startswith(".cursor/rules/") or "/.cursor/rules/" in rel)
                    )
                ):
                    files.append(found)
    return list(dict.fromkeys(files))


def collect(
    paths: Sequence[Path],
    *,
    max_lines: int,
    encoding: str | None = None,
    forced_type: str | None = None,
) -> Collected:
    out = Collected()
    for path in discover(paths, out):
        src = read_or_report(path, encoding, out)
        if src is None:
            continue
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
