"""Writing generated files into a project without touching anything a person wrote.

memkit owns the files named `memkit-*` that carry its marker, and the marked block in
CLAUDE.md; everything else is left as it is. A file memkit would write over that lacks the
marker stops the export before anything is written. Unchanged files are not rewritten (their
modification time stays), stale generated files are removed, every write is atomic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from memkit.errors import MemkitError
from memkit.exporters.render import PREFIX
from memkit.files import write_atomic
from memkit.importers.source import BLOCK_BEGIN, BLOCK_END, GENERATED_MARK


@dataclass
class SyncReport:
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.written or self.removed)


def _ours(path: Path) -> bool:
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            return GENERATED_MARK in fh.read(4000)
    except OSError:
        return False


def sync_folder(
    project: Path, folder: str, files: dict[str, str], suffix: str, *, dry_run: bool = False
) -> SyncReport:
    """Make `project/folder` hold exactly `files` among memkit's generated files."""
    base = project / folder
    report = SyncReport()
    for name in files:
        path = base / name
        if path.exists() and not _ours(path):
            raise MemkitError(
                f"{path.relative_to(project)} exists and was not written by memkit export; "
                "rename it (memkit owns generated memkit-* files) and run the export again"
            )
    for name, text in sorted(files.items()):
        path = base / name
        rel = path.relative_to(project).as_posix()
        try:
            same = path.read_text(encoding="utf-8") == text
        except (OSError, UnicodeDecodeError):
            same = False
        if same:
            report.unchanged.append(rel)
            continue
        if not dry_run:
            write_atomic(path, text)
        report.written.append(rel)
    if base.is_dir():
        for path in sorted(base.glob(f"{PREFIX}*{suffix}")):
            if path.name not in files and path.is_file() and _ours(path):
                if not dry_run:
                    path.unlink()
                report.removed.append(path.relative_to(project).as_posix())
    return report


def with_block(text: str, block: str) -> str:
    """`text` (a CLAUDE.md) with memkit's marked block replaced, or added at the end; the
    file's own line ends are kept."""
    newline = "\r\n" if "\r\n" in text else "\n"
    block = block.replace("\n", newline)
    start = text.find(BLOCK_BEGIN)
    if start >= 0:
        end = text.find(BLOCK_END, start)
        if end < 0:
            raise MemkitError(
                f"CLAUDE.md has `{BLOCK_BEGIN}` but no `{BLOCK_END}`; "
                "restore the end marker or delete the start marker, then export again"
            )
        return text[:start] + block + text[end + len(BLOCK_END) :]
    if not text.strip():
        return block + newline
    return text.rstrip("\r\n") + newline + newline + block + newline


def sync_block(project: Path, block: str, *, dry_run: bool = False) -> SyncReport:
    """Put `block` into `project`'s CLAUDE.md (`.claude/CLAUDE.md` when only that exists)."""
    path = project / "CLAUDE.md"
    if not path.exists() and (project / ".claude" / "CLAUDE.md").is_file():
        path = project / ".claude" / "CLAUDE.md"
    report = SyncReport()
    rel = path.relative_to(project).as_posix()
    try:
        raw = path.read_bytes() if path.exists() else b""
        before = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MemkitError(f"{rel} is not UTF-8 ({exc}); memkit will not rewrite it") from exc
    after = with_block(before, block)
    if after == before:
        report.unchanged.append(rel)
    else:
        if not dry_run:
            write_atomic(path, after)
        report.written.append(rel)
    return report


def without_block(text: str) -> str:
    """`text` (a CLAUDE.md) with memkit's marked block and the blank line before it taken
    out; everything else as it was."""
    start = text.find(BLOCK_BEGIN)
    if start < 0:
        return text
    end = text.find(BLOCK_END, start)
    if end < 0:
        raise MemkitError(
            f"CLAUDE.md has `{BLOCK_BEGIN}` but no `{BLOCK_END}`; "
            "restore the end marker or delete the start marker, then run this again"
        )
    head, tail = text[:start].rstrip("\r\n"), text[end + len(BLOCK_END) :].lstrip("\r\n")
    newline = "\r\n" if "\r\n" in text else "\n"
    if not head:
        return tail
    return head + newline + (newline + tail if tail else "")


def remove_block(project: Path, *, dry_run: bool = False) -> SyncReport:
    """Take memkit's block out of `project`'s CLAUDE.md; a file left empty goes (the export
    made it)."""
    report = SyncReport()
    for path in (project / "CLAUDE.md", project / ".claude" / "CLAUDE.md"):
        try:
            before = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        after = without_block(before)
        if after == before:
            continue
        rel = path.relative_to(project).as_posix()
        if after.strip():
            report.written.append(rel)
            if not dry_run:
                write_atomic(path, after)
        else:
            report.removed.append(rel)
            if not dry_run:
                path.unlink()
    return report
