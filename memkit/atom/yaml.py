"""An atom's frontmatter block as a mapping: the plain subset without a YAML library, the
rest through ruamel's round-trip loader (YAML 1.2: `no`/`on` stay strings), with each key's
line. Aliases and deep nesting are refused before anything is built from them (MK020);
invalid YAML is MK003, an impossible date MK017, anything but a mapping MK004.

ruamel and python-frontmatter are imported on first use (~50 ms), never at module level:
most atoms need neither.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass
from io import StringIO
from typing import Any

from memkit.atom import plain
from memkit.atom.checks import Collector, is_date

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {
    "frontmatter.default_handlers",
    "ruamel.yaml",
    "ruamel.yaml.comments",
    "ruamel.yaml.error",
    "ruamel.yaml.events",
}


MAX_YAML_DEPTH = 8
_UNREAL_DATE = re.compile(r"^(\s*[\w-]+:[ \t]*)(\d{4}-\d{2}-\d{2})(?=[ \t]*(?:#.*)?$)", re.M)
_DATE_AT_LINE_START = re.compile(r"^\s*[\w-]+:\s*['\"]?(\d{4}-\d{2}-\d{2})")


@dataclass(frozen=True)
class Block:
    """A file split at its frontmatter fences."""

    yaml_text: str
    yaml_line: int  # file line of the first YAML line
    body: str
    body_line: int


Where = dict[str, tuple[int, int]]  # key -> (line, column) in the file


@functools.cache
def round_trip_handler() -> Any:
    """python-frontmatter's handler, with ruamel's round-trip loader instead of PyYAML (a
    class made on first use: importing ruamel and python-frontmatter costs ~50 ms, and most
    atoms need neither, see `memkit.atom.plain`)."""
    from frontmatter.default_handlers import YAMLHandler

    class RoundTripYAMLHandler(YAMLHandler):
        def load(self, fm: str, **kwargs: object) -> Any:
            return ruamel_yaml().load(fm)

        def export(self, metadata: dict[str, object], **kwargs: object) -> str:
            out = StringIO()
            ruamel_yaml().dump(metadata, out)
            return str(out.getvalue()).rstrip("\n")

    return RoundTripYAMLHandler


def commented_map() -> Any:
    """ruamel's mapping type (what the round-trip loader makes of a mapping)."""
    from ruamel.yaml.comments import CommentedMap

    return CommentedMap


def ruamel_yaml() -> Any:
    """A round-trip ruamel loader and dumper that keeps an author's quoting and long lines."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt", pure=True)
    yaml.preserve_quotes = True
    yaml.width = 4096  # never re-wrap an author's long lines
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def load_frontmatter(
    block: Block, out: Collector, *, fast: bool = False
) -> tuple[dict[str, Any], Where] | None:
    """The frontmatter mapping and each key's place, or None after reporting why not.
    `fast` (indexing) does without the places."""
    found = plain.read(block.yaml_text)
    if found is not None:  # the plain subset most atoms use: no YAML library needed
        if fast:
            return found[0], {}
        return found[0], {key: (block.yaml_line + n, 1) for key, n in found[1].items()}
    try:
        loaded = _load_with_ruamel(block, out, fast=fast)
    except ValueError as exc:
        # ruamel builds dates eagerly: 2026-13-01 fails while loading, not in the scanner.
        # Read the impossible date as text, so the key's own check reports it (with its
        # column) and every other problem of the atom is reported in the same run.
        quoted = _UNREAL_DATE.sub(
            lambda m: f"{m[1]}'{m[2]}'" if not is_date(m[2]) else m[0], block.yaml_text
        )
        if quoted != block.yaml_text:
            return load_frontmatter(dataclasses.replace(block, yaml_text=quoted), out, fast=fast)
        line = _unreal_date_line(block)
        out.error(line, 1, "MK017", f"not a real date ({exc}); write dates as YYYY-MM-DD")
        return None
    if loaded is None:
        return None
    if not isinstance(loaded, dict) or not loaded:
        out.error(
            block.yaml_line,
            1,
            "MK004",
            "frontmatter must be a mapping of keys to values (`id: my-atom`)",
        )
        return None
    return loaded, _key_lines(loaded, block.yaml_line)


def _load_with_ruamel(block: Block, out: Collector, *, fast: bool) -> Any:
    """What ruamel reads; None after reporting MK003 or MK020. An impossible date raises
    ValueError."""
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        if _needs_scan(block.yaml_text) and not _scan_is_safe(block, out):
            return None
        loaded = round_trip_handler()().load(block.yaml_text)
        if fast and isinstance(loaded, commented_map()):
            loaded = dict(loaded)  # indexing does without key lines
    except MarkedYAMLError as exc:
        _report_invalid_yaml(exc, block.yaml_line, out)
        return None
    except (YAMLError, RecursionError) as exc:
        out.error(block.yaml_line, 1, "MK003", f"frontmatter is not valid YAML: {exc}")
        return None
    return loaded


def _unreal_date_line(block: Block) -> int:
    for i, text_line in enumerate(block.yaml_text.split("\n")):
        m = _DATE_AT_LINE_START.match(text_line)
        if m and not is_date(m.group(1)):
            return block.yaml_line + i
    return block.yaml_line


def _scan_is_safe(block: Block, out: Collector) -> bool:
    """MK020: aliases (billion-laughs bombs) and deep nesting, found in ruamel's events
    before anything is built from them."""
    from ruamel.yaml.events import (
        AliasEvent,
        CollectionEndEvent,
        CollectionStartEvent,
    )

    depth = 0
    for event in ruamel_yaml().parse(block.yaml_text):
        if isinstance(event, AliasEvent):
            mark = event.start_mark
            out.error(
                block.yaml_line + mark.line,
                mark.column + 1,
                "MK020",
                "YAML aliases (*name) are not allowed in frontmatter; write the value out",
            )
            return False
        if isinstance(event, CollectionStartEvent):
            depth += 1
            if depth > MAX_YAML_DEPTH:
                mark = event.start_mark
                out.error(
                    block.yaml_line + mark.line,
                    mark.column + 1,
                    "MK020",
                    f"frontmatter nested deeper than {MAX_YAML_DEPTH} levels",
                )
                return False
        elif isinstance(event, CollectionEndEvent):
            depth -= 1
    return True


def _report_invalid_yaml(exc: Any, yaml_line: int, out: Collector) -> None:
    """MK003 at ruamel's mark: a duplicate key, a tab, or what ruamel says."""
    mark = exc.problem_mark or exc.context_mark
    line = yaml_line + (mark.line if mark else 0)
    col = mark.column + 1 if mark else 1
    problem = exc.problem or "invalid YAML"
    if "duplicate key" in problem or type(exc).__name__ == "DuplicateKeyError":
        out.error(line, col, "MK003", "duplicate key in frontmatter; keep one of them")
    elif "\\t" in problem or "'\\t'" in str(exc):
        out.error(line, col, "MK003", "tab character in frontmatter; YAML indents with spaces")
    else:
        out.error(line, col, "MK003", f"frontmatter is not valid YAML: {problem}")


def _needs_scan(yaml_text: str) -> bool:
    """Whether the YAML could hold aliases or deep nesting: only then is it scanned first.

    Most frontmatter has neither `&`/`*` nor more than a couple of brackets; skipping the
    scan halves the cost of parsing it.
    """
    if "&" in yaml_text or "*" in yaml_text:
        return True
    depth = deepest = 0
    for ch in yaml_text:
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    indent = max((len(line) - len(line.lstrip(" ")) for line in yaml_text.split("\n")), default=0)
    return deepest + indent // 2 >= MAX_YAML_DEPTH


def _key_lines(meta: Any, yaml_line: int) -> Where:
    where: Where = {}
    if not isinstance(meta, commented_map()):
        return where
    for key in meta:
        try:
            line, col = meta.lc.key(key)
        except (KeyError, TypeError):
            line, col = 0, 0
        where[str(key)] = (yaml_line + line, col + 1)
    return where
