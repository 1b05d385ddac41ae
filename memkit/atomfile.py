"""Reading atom files: bytes → checked text → frontmatter + body → a frozen `Atom`.

Every problem becomes a `Finding` with a real line; nothing here raises on bad input.
Frontmatter goes through python-frontmatter with a round-trip ruamel.yaml handler, so a
program that changes one field keeps the author's comments, key order and quoting, and YAML
1.2 keeps `no`/`on` as strings.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path
from types import MappingProxyType
from typing import Any

from memkit import plainyaml
from memkit.atom import (
    CONFIDENCE_ALIASES,
    CONFIDENCES,
    ID_MAX_LEN,
    ID_RE,
    KNOWN_KEYS,
    LIST_KEYS,
    REQUIRED_KEYS,
    STATUSES,
    TYPES,
    Atom,
    id_from_path,
    scope_from_path,
)
from memkit.config import Config
from memkit.files import NotRegular, read_regular, write_atomic
from memkit.findings import Finding, Severity

MAX_YAML_DEPTH = 8
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_BOUNDARY = re.compile(r"^-{3,}\s*$")
_UNREAL_DATE = re.compile(r"^(\s*[\w-]+:[ \t]*)(\d{4}-\d{2}-\d{2})(?=[ \t]*(?:#.*)?$)", re.M)


@functools.cache
def round_trip_handler() -> Any:
    """python-frontmatter's handler, with ruamel's round-trip loader instead of PyYAML (a
    class made on first use: importing ruamel and python-frontmatter costs ~50 ms, and most
    atoms need neither, see plainyaml)."""
    from frontmatter.default_handlers import YAMLHandler  # noqa: PLC0415

    class RoundTripYAMLHandler(YAMLHandler):
        def load(self, fm: str, **kwargs: object) -> Any:
            return _yaml().load(fm)

        def export(self, metadata: dict[str, object], **kwargs: object) -> str:
            out = StringIO()
            _yaml().dump(metadata, out)
            return str(out.getvalue()).rstrip("\n")

    return RoundTripYAMLHandler


def _commented_map() -> Any:
    from ruamel.yaml.comments import CommentedMap  # noqa: PLC0415

    return CommentedMap


def _yaml() -> Any:
    from ruamel.yaml import YAML  # noqa: PLC0415

    yaml = YAML(typ="rt", pure=True)
    yaml.preserve_quotes = True
    yaml.width = 4096  # never re-wrap an author's long lines
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


@dataclass(frozen=True)
class ParsedAtom:
    path: str
    atom: Atom | None
    findings: tuple[Finding, ...]
    text: str = field(default="", repr=False)  # the file as read: what content checks read

    @property
    def ok(self) -> bool:
        return self.atom is not None and not any(f.is_error for f in self.findings)


@dataclass(frozen=True)
class _Split:
    yaml_text: str
    yaml_line: int  # file line of the first YAML line
    body: str
    body_line: int


class _Collector:
    def __init__(self, path: str) -> None:
        self.path = path
        self.findings: list[Finding] = []

    def error(self, line: int, col: int, code: str, message: str) -> None:
        self.findings.append(Finding(self.path, line, col, code, message))

    def warn(self, line: int, col: int, code: str, message: str) -> None:
        self.findings.append(Finding(self.path, line, col, code, message, Severity.WARNING))


def read_atom(
    root: Path, relpath: str, config: Config | None = None, *, fast: bool = False
) -> ParsedAtom:
    """Parse one atom. `fast` (for indexing) skips what only reports need: the exact line
    of each key. Both read the same atom (frontmatter beyond the plain subset through ruamel
    either way: a YAML 1.1 reader would index `title: true` that validation refuses)."""
    config = config or Config()
    out = _Collector(relpath)
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
    out = _Collector(relpath)
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


def _decode(data: bytes, out: _Collector) -> str | None:
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


def _split(text: str, out: _Collector) -> _Split | None:
    lines = text.split("\n")
    if not text.strip():
        out.error(1, 1, "MK002", "empty file; an atom starts with a `---` frontmatter block")
        return None
    if not _BOUNDARY.match(lines[0]):
        out.error(
            1,
            1,
            "MK002",
            "missing frontmatter: the first line must be `---`, "
            "followed by YAML keys (id, type, confidence, created) and a closing `---`",
        )
        return None
    for i in range(1, len(lines)):
        if _BOUNDARY.match(lines[i]):
            return _Split("\n".join(lines[1:i]) + "\n", 2, "\n".join(lines[i + 1 :]), i + 2)
    out.error(1, 1, "MK002", "frontmatter is not closed: add a `---` line after the YAML keys")
    return None


class _Located(dict[str, Any]):
    """Frontmatter read by `plainyaml`, with each key's (line, column) in the file."""

    where: dict[str, tuple[int, int]]


def _load_yaml(split: _Split, out: _Collector, *, fast: bool = False) -> dict[str, Any] | None:
    plain = plainyaml.read(split.yaml_text)
    if plain is not None:  # the plain subset most atoms use: no YAML library needed
        if fast:
            return plain[0]
        located = _Located(plain[0])
        located.where = {key: (split.yaml_line + n, 1) for key, n in plain[1].items()}
        return located
    from ruamel.yaml.error import MarkedYAMLError, YAMLError  # noqa: PLC0415
    from ruamel.yaml.events import (  # noqa: PLC0415
        AliasEvent,
        CollectionEndEvent,
        CollectionStartEvent,
    )

    try:
        # Scan events first: aliases (billion-laughs bombs) and deep nesting are refused
        # before anything is built from them.
        depth = 0
        events = _yaml().parse(split.yaml_text) if _needs_scan(split.yaml_text) else ()
        for event in events:
            if isinstance(event, AliasEvent):
                mark = event.start_mark
                out.error(
                    split.yaml_line + mark.line,
                    mark.column + 1,
                    "MK020",
                    "YAML aliases (*name) are not allowed in frontmatter; write the value out",
                )
                return None
            if isinstance(event, CollectionStartEvent):
                depth += 1
                if depth > MAX_YAML_DEPTH:
                    mark = event.start_mark
                    out.error(
                        split.yaml_line + mark.line,
                        mark.column + 1,
                        "MK020",
                        f"frontmatter nested deeper than {MAX_YAML_DEPTH} levels",
                    )
                    return None
            elif isinstance(event, CollectionEndEvent):
                depth -= 1
        loaded = round_trip_handler()().load(split.yaml_text)
        if fast and isinstance(loaded, _commented_map()):
            loaded = dict(loaded)  # indexing does without key lines
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = split.yaml_line + (mark.line if mark else 0)
        col = mark.column + 1 if mark else 1
        problem = exc.problem or "invalid YAML"
        if "duplicate key" in problem or type(exc).__name__ == "DuplicateKeyError":
            out.error(line, col, "MK003", "duplicate key in frontmatter; keep one of them")
        elif "\\t" in problem or "'\\t'" in str(exc):
            out.error(line, col, "MK003", "tab character in frontmatter; YAML indents with spaces")
        else:
            out.error(line, col, "MK003", f"frontmatter is not valid YAML: {problem}")
        return None
    except ValueError as exc:
        # ruamel builds dates eagerly: 2026-13-01 fails here, not in the scanner. Read the
        # impossible date as text, so the key's own check reports it (with its column) and
        # every other problem of the atom is reported in the same run.
        quoted = _UNREAL_DATE.sub(
            lambda m: f"{m[1]}'{m[2]}'" if not _is_date(m[2]) else m[0], split.yaml_text
        )
        if quoted != split.yaml_text:
            return _load_yaml(
                _Split(quoted, split.yaml_line, split.body, split.body_line), out, fast=fast
            )
        line = split.yaml_line
        for i, text_line in enumerate(split.yaml_text.split("\n")):
            m = re.match(r"^\s*[\w-]+:\s*['\"]?(\d{4}-\d{2}-\d{2})", text_line)
            if m and not _is_date(m.group(1)):
                line = split.yaml_line + i
                break
        out.error(line, 1, "MK017", f"not a real date ({exc}); write dates as YYYY-MM-DD")
        return None
    except (YAMLError, RecursionError) as exc:
        out.error(split.yaml_line, 1, "MK003", f"frontmatter is not valid YAML: {exc}")
        return None
    if not isinstance(loaded, dict) or not loaded:
        out.error(
            split.yaml_line,
            1,
            "MK004",
            "frontmatter must be a mapping of keys to values (`id: my-atom`)",
        )
        return None
    return loaded


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


def _key_lines(meta: Any, yaml_line: int) -> dict[str, tuple[int, int]]:
    where: dict[str, tuple[int, int]] = {}
    if not isinstance(meta, _commented_map()):
        return where
    for key in meta:
        try:
            line, col = meta.lc.key(key)
        except (KeyError, TypeError):
            line, col = 0, 0
        where[str(key)] = (yaml_line + line, col + 1)
    return where


def _scalar(value: object) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, (str, int, float)):
        return str(value)
    return None


def _parse_text(
    relpath: str, text: str, config: Config, out: _Collector, *, fast: bool = False
) -> Atom | None:
    split = _split(text, out)
    if split is None:
        return None
    meta = _load_yaml(split, out, fast=fast)
    if meta is None:
        return None
    where = meta.where if isinstance(meta, _Located) else _key_lines(meta, split.yaml_line)

    def at(key: str) -> tuple[int, int]:
        return where.get(key, (1, 1))

    values: dict[str, str] = {}
    lists: dict[str, tuple[str, ...]] = {}
    extra: dict[str, str] = {}
    for raw_key, value in meta.items():
        key = str(raw_key)
        line, col = at(key)
        if key not in KNOWN_KEYS:
            out.warn(line, col, "MK016", f"unknown key `{key}` (kept, but memkit ignores it)")
            extra[key] = str(value)
            continue
        if key in LIST_KEYS:
            items = [value] if isinstance(value, str) else value
            if not isinstance(items, list) or any(_scalar(v) is None for v in items):
                out.error(
                    line,
                    col,
                    "MK017",
                    f"`{key}` must be a list of strings, e.g. `{key}: [first, second]`",
                )
                continue
            lists[key] = tuple(str(_scalar(v)).strip() for v in items if str(v).strip())
            continue
        scalar = _scalar(value)
        if scalar is None:
            out.error(line, col, "MK017", f"`{key}` must be a single value, not {_kind(value)}")
            continue
        values[key] = scalar.strip()

    _check_triggers(lists.get("triggers", ()), at("triggers"), config, out)
    for key in REQUIRED_KEYS:
        if key not in meta:
            out.error(split.yaml_line, 1, "MK005", f"missing required key `{key}`{_HINTS[key]}")

    expected_id = id_from_path(relpath)
    atom_id = values.get("id", "")
    if "id" in values:
        line, col = at("id")
        if not ID_RE.match(atom_id) or len(atom_id) > ID_MAX_LEN:
            out.error(
                line,
                col,
                "MK007",
                f"id `{atom_id}` is not lowercase ASCII kebab-case "
                f"(a-z, 0-9 and single hyphens, at most {ID_MAX_LEN} characters)",
            )
        elif atom_id != expected_id:
            out.error(
                line,
                col,
                "MK008",
                f"id `{atom_id}` does not match the file name; "
                f"rename the file to `{atom_id}.md` or set `id: {expected_id}`",
            )

    atom_type = values.get("type", "")
    if "type" in values and atom_type not in TYPES:
        line, col = at("type")
        out.error(line, col, "MK006", f"type `{atom_type}` is not one of: {', '.join(TYPES)}")
    confidence = CONFIDENCE_ALIASES.get(values.get("confidence", ""), values.get("confidence", ""))
    if "confidence" in values and confidence not in CONFIDENCES:
        line, col = at("confidence")
        out.error(
            line,
            col,
            "MK006",
            f"confidence `{confidence}` is not one of: {', '.join(CONFIDENCES)} (or 臨 / 觀 / 固)",
        )
    status = values.get("status", "active")
    if status not in STATUSES:
        line, col = at("status")
        out.error(line, col, "MK006", f"status `{status}` is not one of: {', '.join(STATUSES)}")
    for key in ("created", "updated", "expires"):
        if key in values and not _is_date(values[key]):
            line, col = at(key)
            out.error(
                line,
                col,
                "MK017",
                f"`{key}` is not a real date: `{values[key]}` has no such day"
                if _DATE_RE.match(values[key])
                else f"`{key}` must be a date written YYYY-MM-DD, got `{values[key]}`",
            )

    place = scope_from_path(relpath)
    scope, pending = place if place is not None else ("", False)
    if place is None:
        out.error(
            1,
            1,
            "MK012",
            "this file is not in a scope folder (shared/, roles/<role>/, "
            "personal/<user>/, episodic/, archive/)",
        )
    elif "scope" in values and values["scope"] != scope:
        line, col = at("scope")
        out.error(
            line,
            col,
            "MK012",
            f"`scope: {values['scope']}` disagrees with the folder, "
            f"which gives `{scope}`; move the file or fix the key",
        )

    body = split.body
    if not body.strip():
        out.error(
            split.body_line,
            1,
            "MK015",
            "empty body: write what the atom says below the "
            "frontmatter, starting with a `# Title` line",
        )
    total_lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    if total_lines > config.atom_lines:
        out.error(
            config.atom_lines + 1,
            1,
            "MK013",
            f"atom has {total_lines} lines, more than "
            f"the limit of {config.atom_lines} (limits.atom_lines); split it",
        )

    from memkit.markdown import parse_sections  # noqa: PLC0415

    sections = parse_sections(body, split.body_line) if body.strip() else ()
    title = values.get("title") or next(
        (s.heading for s in sections if s.level == 1 and s.heading), atom_id or expected_id
    )
    return Atom(
        path=relpath,
        id=atom_id or expected_id,
        type=atom_type,
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
        pending=pending,
        sections=sections,
        body_line=split.body_line,
        key_lines=MappingProxyType({k: v[0] for k, v in where.items()}),
        extra=MappingProxyType(extra),
    )


def _check_triggers(
    triggers: tuple[str, ...], where: tuple[int, int], config: Config, out: _Collector
) -> None:
    """MK021 a trigger that would match nearly every prompt; MK022 too many of them."""
    from memkit.triggers import trigger_problem  # noqa: PLC0415

    line, col = where
    for trigger in triggers:
        problem = trigger_problem(trigger)
        if problem:
            out.error(
                line,
                col,
                "MK021",
                f"trigger `{trigger}` {problem}; use words that say what this atom is "
                "about (`websocket heartbeat`, not `the`)",
            )
    if len(triggers) > config.triggers:
        out.error(
            line,
            col,
            "MK022",
            f"{len(triggers)} triggers, more than the limit of {config.triggers} "
            "(limits.triggers); keep the few words a prompt about this atom would use",
        )


_HINTS: Mapping[str, str] = {
    "id": " (the file name without .md, e.g. `id: ws-heartbeat-interval`)",
    "type": f" (one of: {', '.join(TYPES)})",
    "confidence": " (tentative, observed or fixed)",
    "created": " (the date it was written, e.g. `created: 2026-02-08`)",
}


def _kind(value: object) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "empty"
    return type(value).__name__


def _is_date(value: str) -> bool:
    if not _DATE_RE.match(value):
        return False
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def update_frontmatter(path: Path, changes: Mapping[str, object]) -> None:
    """Set frontmatter keys in place, keeping comments, key order, quoting and the body.

    A value of None removes the key. The file is replaced atomically.
    """
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    end = next((i for i in range(1, len(lines)) if _BOUNDARY.match(lines[i])), None)
    if not lines or not _BOUNDARY.match(lines[0]) or end is None:
        raise ValueError(f"{path}: no frontmatter block to update")
    meta = _yaml().load("\n".join(lines[1:end]) + "\n")
    if not isinstance(meta, _commented_map()):
        raise ValueError(f"{path}: frontmatter is not a mapping")
    for key, value in changes.items():
        if value is None:
            meta.pop(key, None)
        else:
            meta[key] = value
    dumped = round_trip_handler()().export(meta)
    new_text = "\n".join([lines[0], dumped, *lines[end:]])
    write_atomic(path, new_text)
