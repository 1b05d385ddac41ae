"""Is a pair the last audit found still unresolved? Checked against the files as they are now.

The audit report is written at a pull; by the next session one atom may supersede the other,
be archived, or be gone. This module reads only the frontmatter of the two files
(`memkit.atom.plain.read_meta`, strings only): it is on the Claude Code hook path, which must
stay light (no ruamel).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.atom.plain"}


log = logging.getLogger(__name__)
REPORT = ".memkit/audit/last.json"
# Contradictions a writer let in (MK105, a warning): no pull audit runs in the writer's own
# clone, yet recall may inject both atoms together there (`memkit.audit.write.remember`).
WRITTEN = ".memkit/audit/written.json"


@dataclass(frozen=True)
class State:
    id: str
    active: bool
    supersedes: frozenset[str]
    superseded_by: frozenset[str]


# What one look at the reports read of each atom file (relpath -> State): made by the caller
# for one pass over many pairs, so an atom named by many pairs is read once; never kept
# between calls, so nothing read before a file changed is answered after.
Seen = dict[str, "State | None"]


def state(root: Path, relpath: str, seen: Seen | None = None) -> State | None:
    """The id, liveness and supersede links of one atom file; None when it is gone."""
    if seen is not None and relpath in seen:
        return seen[relpath]
    path = root / relpath
    found = _read(path, relpath) if path.is_file() else None
    if seen is not None:
        seen[relpath] = found
    return found


def _read(path: Path, relpath: str) -> State | None:
    from memkit.atom.plain import read_meta

    meta = read_meta(path)  # unreadable frontmatter: validation reports it; here it is not live
    if meta is None:
        return None
    pending = relpath.startswith("shared/_pending/")
    archived = relpath.startswith("archive/")
    return State(
        str(meta.get("id") or Path(relpath).stem),
        str(meta.get("status") or "active") == "active" and not pending and not archived,
        _ids(meta.get("supersedes")),
        _ids(meta.get("superseded_by")),
    )


def _ids(value: Any) -> frozenset[str]:
    if isinstance(value, str):
        return frozenset([value])
    if isinstance(value, list):
        return frozenset(str(v) for v in value)
    return frozenset()


def unresolved_now(root: Path, item: dict[str, Any], seen: Seen | None = None) -> bool:
    """Whether a pair of the report still stands: both files there, both live, neither
    superseding the other. `seen`: the atoms one pass over many pairs has read already."""
    a = state(root, str(item.get("incoming_path", "")), seen)
    b = state(root, str(item.get("other_path", "")), seen)
    if a is None or b is None or not a.active or not b.active:
        return False
    return not (
        b.id in a.supersedes
        or a.id in b.supersedes
        or b.id in a.superseded_by
        or a.id in b.superseded_by
    )


def read_report(root: Path) -> dict[str, Any] | None:
    """The last audit report as written (`{}` when it is not a mapping), None when there is
    none or it cannot be read."""
    try:
        data = json.loads((root / REPORT).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else {}


def full_audit_rules(report: dict[str, Any]) -> int:
    """The contradiction rules (`memkit.audit.classify.RULES`) the report's last full audit
    (`memkit audit --all`) ran with; 0 when none did."""
    value = report.get("full_audit_rules", 0)
    return value if isinstance(value, int) else 0


def reported(root: Path) -> list[dict[str, Any]]:
    """The unresolved pairs of the last audit report and of the writes since, each pair
    once: A against B and B against A are one conflict (a pull's report may name it one
    way, a write since the other)."""
    items: dict[frozenset[str], dict[str, Any]] = {}
    for name in (REPORT, WRITTEN):
        for item in unresolved_items(root / name):
            pair = frozenset((str(item.get("incoming_path")), str(item.get("other_path"))))
            items.setdefault(pair, item)
    return list(items.values())


def unresolved_items(path: Path) -> list[dict[str, Any]]:
    """The `unresolved` pairs of one report file; [] when there is none or it is unreadable."""
    if not path.is_file():
        return []
    try:
        items = json.loads(path.read_text(encoding="utf-8")).get("unresolved", [])
    except (OSError, ValueError, AttributeError):
        log.info("audit report %s is unreadable; ignoring it", path)
        items = []
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def open_conflicts(root: Path, *, kinds: Iterable[str] = ("contradicts",)) -> list[dict[str, Any]]:
    """The report's unresolved pairs of these kinds that still stand in the working tree."""
    wanted = set(kinds)
    seen: Seen = {}
    return [i for i in reported(root) if i.get("kind") in wanted and unresolved_now(root, i, seen)]


# The Claude Code hooks read bounded parts of the reports: a pull over a large memory can
# leave a report of megabytes (10,000 pairs: ~5 MB), and parsing it whole, then reading two
# atoms' frontmatter per pair, cost SessionStart seconds on a loaded machine.
HOOK_BYTES = 256_000  # of a report's unresolved list read by SessionStart
_LIST = '"unresolved": ['


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def head_items(path: Path, max_bytes: int = HOOK_BYTES) -> tuple[list[dict[str, Any]], bool]:
    """The first unresolved pairs of a report, decoded one at a time within `max_bytes` of
    the list (a pair is a flat object); and whether there are more after them."""
    text = _text(path)
    start = text.find(_LIST)
    if start < 0:
        return [], False
    decoder = json.JSONDecoder()
    pos = start + len(_LIST)
    stop = pos + max_bytes
    out: list[dict[str, Any]] = []
    while pos < len(text):
        pos = text.find("{", pos)
        close = text.find("]", pos if pos >= 0 else len(text))
        if pos < 0 or 0 <= close < pos:
            return out, False  # the end of the list
        if pos >= stop:
            return out, True
        try:
            item, pos = decoder.raw_decode(text, pos)
        except ValueError:
            return out, False
        if isinstance(item, dict):
            out.append(item)
    return out, False


def first_conflicts(
    root: Path, kinds: Iterable[str], limit: int, max_bytes: int = HOOK_BYTES
) -> tuple[list[dict[str, Any]], bool]:
    """Up to `limit` unresolved pairs of these kinds that still stand, from the head of each
    report (bounded); and whether the reports hold more than was read."""
    wanted = set(kinds)
    found: list[dict[str, Any]] = []
    more = False
    pairs: set[frozenset[str]] = set()  # A against B and B against A: one conflict
    atoms: Seen = {}
    for name in (WRITTEN, REPORT):
        items, rest = head_items(root / name, max_bytes)
        more = more or rest
        for n, item in enumerate(items):
            pair = frozenset((str(item.get("incoming_path")), str(item.get("other_path"))))
            if item.get("kind") not in wanted or pair in pairs:
                continue
            pairs.add(pair)
            if unresolved_now(root, item, atoms):
                found.append(item)
                if len(found) >= limit:
                    return found, more or n < len(items) - 1
    return found, more


def pairs_among(root: Path, ids: set[str]) -> list[dict[str, Any]]:
    """The unresolved pairs whose two atoms are both among `ids`, found by their ids in the
    reports' text (no whole parse): what recall needs for the atoms it injects together."""
    decoder = json.JSONDecoder()
    out: list[dict[str, Any]] = []
    for name in (REPORT, WRITTEN):
        text = _text(root / name)
        end = text.find('"resolved": [')
        if end < 0:
            end = len(text)
        for atom in ids:
            needle = f'"incoming": {json.dumps(atom)}'
            at = text.find(needle, 0, end)
            while at >= 0:
                start = text.rfind("{", 0, at)
                try:
                    item, _ = decoder.raw_decode(text, start)
                except ValueError:
                    item = None
                if isinstance(item, dict) and item.get("other") in ids and item not in out:
                    out.append(item)
                at = text.find(needle, at + len(needle), end)
    return out
