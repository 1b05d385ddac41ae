"""Reading atom files: bytes → checked text → frontmatter + body → a frozen `Atom`.

Every problem becomes a `Finding` with a real line; nothing here raises on bad input. This
module reads the file (MK001 not text, MK018 too large, MK019 a link out of the
repository) and splits it at its frontmatter fences (MK002); `memkit.atom.yaml` loads the
frontmatter, `memkit.atom.checks` holds the rules about its keys and body,
`memkit.atom.markdown` reads the body's sections.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from memkit.atom import Atom, id_from_path
from memkit.atom.checks import (
    Collector,
    check_body,
    check_confidence,
    check_dates,
    check_id,
    check_length,
    check_required_keys,
    check_scope,
    check_status,
    check_triggers,
    check_type,
    sort_keys,
)
from memkit.atom.yaml import Block, load_frontmatter
from memkit.config import Config
from memkit.files import NotRegular, read_regular
from memkit.findings import Finding

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.atom.markdown"}


FENCE = re.compile(r"^-{3,}\s*$")  # a frontmatter block's first and last line


@dataclass(frozen=True)
class ParsedAtom:
    path: str
    atom: Atom | None
    findings: tuple[Finding, ...]
    text: str = field(default="", repr=False)  # the file as read: what content checks read

    @property
    def ok(self) -> bool:
        return self.atom is not None and not any(f.is_error for f in self.findings)


def read_atom(
    root: Path, relpath: str, config: Config | None = None, *, fast: bool = False
) -> ParsedAtom:
    """Parse one atom. `fast` (for indexing) skips what only reports need: the exact line
    of each key. Both read the same atom (frontmatter beyond the plain subset through ruamel
    either way: a YAML 1.1 reader would index `title: true` that validation refuses)."""
    config = config or Config()
    out = Collector(relpath)
    full = root / relpath
    if full.is_symlink():
        target = full.resolve()
        if not target.is_relative_to(root.resolve()):
            out.error(
                1,
                1,
                "MK019",
                f"symlink points outside the repository (to {target}); "
                "commit the atom itself, not a link",
            )
            return ParsedAtom(relpath, None, tuple(out.findings))
    try:
        data = read_regular(full, config.atom_bytes)  # never opens a FIFO or a device
    except NotRegular as exc:
        out.error(1, 1, "MK001", f"{exc}; an atom is a text file: remove it")
        return ParsedAtom(relpath, None, tuple(out.findings))
    except OSError as exc:
        out.error(1, 1, "MK001", f"cannot read file: {exc.strerror or exc}")
        return ParsedAtom(relpath, None, tuple(out.findings))
    return parse_atom_bytes(relpath, data, config, fast=fast)


def parse_atom_bytes(
    relpath: str, data: bytes, config: Config | None = None, *, fast: bool = False
) -> ParsedAtom:
    config = config or Config()
    out = Collector(relpath)
    if len(data) > config.atom_bytes:
        out.error(
            1,
            1,
            "MK018",
            f"file is larger than {config.atom_bytes} bytes "
            "(limits.atom_bytes); split it into several atoms",
        )
        return ParsedAtom(relpath, None, tuple(out.findings))
    text = _decode(data, out)
    if text is None:
        return ParsedAtom(relpath, None, tuple(out.findings))
    atom = _parse_text(relpath, text, config, out, fast=fast)
    return ParsedAtom(relpath, atom, tuple(out.findings), text)


def _decode(data: bytes, out: Collector) -> str | None:
    """MK001: UTF-8 text without NUL bytes (a BOM and CRLF line ends are read through)."""
    if b"\0" in data:
        line = data[: data.index(b"\0")].count(b"\n") + 1
        out.error(line, 1, "MK001", "binary content (NUL byte); an atom is UTF-8 Markdown text")
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        col = exc.start - (before.rfind(b"\n") + 1) + 1
        out.error(
            line,
            col,
            "MK001",
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x}); save the file as UTF-8",
        )
        return None
    return text.removeprefix("\ufeff").replace("\r\n", "\n")


def _split(text: str, out: Collector) -> Block | None:
    """MK002: the file opens with a `---` line and its frontmatter is closed by another."""
    lines = text.split("\n")
    if not text.strip():
        out.error(1, 1, "MK002", "empty file; an atom starts with a `---` frontmatter block")
        return None
    if not FENCE.match(lines[0]):
        out.error(
            1,
            1,
            "MK002",
            "missing frontmatter: the first line must be `---`, "
            "followed by YAML keys (id, type, confidence, created) and a closing `---`",
        )
        return None
    for i in range(1, len(lines)):
        if FENCE.match(lines[i]):
            return Block("\n".join(lines[1:i]) + "\n", 2, "\n".join(lines[i + 1 :]), i + 2)
    out.error(1, 1, "MK002", "frontmatter is not closed: add a `---` line after the YAML keys")
    return None


def _parse_text(
    relpath: str, text: str, config: Config, out: Collector, *, fast: bool = False
) -> Atom | None:
    block = _split(text, out)
    if block is None:
        return None
    loaded = load_frontmatter(block, out, fast=fast)
    if loaded is None:
        return None
    meta, where = loaded

    def at(key: str) -> tuple[int, int]:
        return where.get(key, (1, 1))

    values, lists, extra = sort_keys(meta, at, out)
    check_triggers(lists.get("triggers", ()), at, config, out)
    check_required_keys(meta, block.yaml_line, out)
    expected_id = id_from_path(relpath)
    check_id(values, expected_id, at, out)
    check_type(values, at, out)
    confidence = check_confidence(values, at, out)
    status = check_status(values, at, out)
    check_dates(values, at, out)
    scope, pending = check_scope(relpath, values, at, out)
    body = block.body
    check_body(body, block.body_line, out)
    check_length(text, config, out)

    from memkit.atom.markdown import parse_sections

    sections = parse_sections(body, block.body_line) if body.strip() else ()
    atom_id = values.get("id", "")
    title = values.get("title") or next(
        (s.heading for s in sections if s.level == 1 and s.heading), atom_id or expected_id
    )
    return Atom(
        path=relpath,
        id=atom_id or expected_id,
        type=values.get("type", ""),
        confidence=confidence,
        created=values.get("created", ""),
        status=status,
        scope=scope,
        title=title,
        body=body.strip("\n"),
        author=values.get("author", ""),
        triggers=lists.get("triggers", ()),
        paths=lists.get("paths", ()),
        tags=lists.get("tags", ()),
        related=lists.get("related", ()),
        supersedes=lists.get("supersedes", ()),
        superseded_by=lists.get("superseded_by", ()),
        audience=values.get("audience", ""),
        expires=values.get("expires", ""),
        source=values.get("source", ""),
        project=values.get("project", ""),
        pending=pending,
        sections=sections,
        body_line=block.body_line,
        key_lines=MappingProxyType({k: v[0] for k, v in where.items()}),
        extra=MappingProxyType(extra),
    )
