"""The format rules of one atom file, one function a rule, its codes beside it.

`memkit.atom.read` calls them in this order on every atom it reads; each appends what it
finds to a `Collector` and never raises. Rules across files (MK009-MK011) are
`memkit.admission.decide`'s, content rules (MK110-MK112) `memkit.admission.content`'s.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping
from typing import Any

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
    scope_from_path,
)
from memkit.config import Config
from memkit.findings import Finding, Severity

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.triggers"}


_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")

At = Callable[[str], tuple[int, int]]  # a key's (line, column) in the file


class Collector:
    """The findings of one file, in the order the rules found them."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.findings: list[Finding] = []

    def error(self, line: int, col: int, code: str, message: str) -> None:
        self.findings.append(Finding(self.path, line, col, code, message))

    def warn(self, line: int, col: int, code: str, message: str) -> None:
        self.findings.append(Finding(self.path, line, col, code, message, Severity.WARNING))


def is_date(value: str) -> bool:
    """A real `YYYY-MM-DD` day."""
    if not _DATE_RE.match(value):
        return False
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def scalar_text(value: object) -> str | None:
    """A single value as the text memkit keeps (a date as YYYY-MM-DD); None for anything
    else (a list, a mapping, a boolean, an empty value)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, (str, int, float)):
        return str(value)
    return None


def sort_keys(
    meta: Mapping[Any, Any], at: At, out: Collector
) -> tuple[dict[str, str], dict[str, tuple[str, ...]], dict[str, str]]:
    """(single values, lists, unknown keys) of the frontmatter, each key checked for its
    shape: MK016 (warning) a key memkit does not know, MK017 a list key that is not a list
    of strings or a single-value key that is not a single value."""
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
            if not isinstance(items, list) or any(scalar_text(v) is None for v in items):
                out.error(
                    line,
                    col,
                    "MK017",
                    f"`{key}` must be a list of strings, e.g. `{key}: [first, second]`",
                )
                continue
            lists[key] = tuple(str(scalar_text(v)).strip() for v in items if str(v).strip())
            continue
        scalar = scalar_text(value)
        if scalar is None:
            out.error(line, col, "MK017", f"`{key}` must be a single value, not {_kind(value)}")
            continue
        values[key] = scalar.strip()
    return values, lists, extra


def check_triggers(triggers: tuple[str, ...], at: At, config: Config, out: Collector) -> None:
    """MK021 a trigger that would match nearly every prompt; MK022 too many of them."""
    from memkit.triggers import trigger_problem

    line, col = at("triggers")
    for trigger in triggers:
        problem = trigger_problem(trigger)
        if problem:
            short = trigger.strip()
            # A short name (`uv`, `k8`) is still the right word, in a phrase; a stop word is not.
            fix = (
                f"use it in a phrase a prompt about this atom would contain (`{short} lock`, "
                f"`{short} sync`), or a longer name"
                if problem.startswith(("is one or two", "is a single"))
                else "use words that say what this atom is about (`websocket heartbeat`, not `the`)"
            )
            out.error(line, col, "MK021", f"trigger `{trigger}` {problem}; {fix}")
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


def check_required_keys(meta: Mapping[Any, Any], yaml_line: int, out: Collector) -> None:
    """MK005: id, type, confidence and created are there."""
    for key in REQUIRED_KEYS:
        if key not in meta:
            out.error(yaml_line, 1, "MK005", f"missing required key `{key}`{_HINTS[key]}")


def check_id(values: Mapping[str, str], expected_id: str, at: At, out: Collector) -> None:
    """MK007 an id that is not lowercase kebab-case; MK008 one that is not the file name."""
    if "id" not in values:
        return
    atom_id = values["id"]
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


def check_type(values: Mapping[str, str], at: At, out: Collector) -> None:
    """MK006: the type is one of TYPES."""
    atom_type = values.get("type", "")
    if "type" in values and atom_type not in TYPES:
        line, col = at("type")
        out.error(line, col, "MK006", f"type `{atom_type}` is not one of: {', '.join(TYPES)}")


def check_confidence(values: Mapping[str, str], at: At, out: Collector) -> str:
    """MK006: the confidence is one of CONFIDENCES or its CJK alias. Returns it, resolved."""
    confidence = CONFIDENCE_ALIASES.get(values.get("confidence", ""), values.get("confidence", ""))
    if "confidence" in values and confidence not in CONFIDENCES:
        line, col = at("confidence")
        out.error(
            line,
            col,
            "MK006",
            f"confidence `{confidence}` is not one of: {', '.join(CONFIDENCES)} (or 臨 / 觀 / 固)",
        )
    return confidence


def check_status(values: Mapping[str, str], at: At, out: Collector) -> str:
    """MK006: the status (default active) is one of STATUSES. Returns it."""
    status = values.get("status", "active")
    if status not in STATUSES:
        line, col = at("status")
        out.error(line, col, "MK006", f"status `{status}` is not one of: {', '.join(STATUSES)}")
    return status


def check_dates(values: Mapping[str, str], at: At, out: Collector) -> None:
    """MK017: created, updated and expires are real days written YYYY-MM-DD."""
    for key in ("created", "updated", "expires"):
        if key in values and not is_date(values[key]):
            line, col = at(key)
            out.error(
                line,
                col,
                "MK017",
                f"`{key}` is not a real date: `{values[key]}` has no such day"
                if _DATE_RE.match(values[key])
                else f"`{key}` must be a date written YYYY-MM-DD, got `{values[key]}`",
            )


def check_scope(
    relpath: str, values: Mapping[str, str], at: At, out: Collector
) -> tuple[str, bool]:
    """MK012: the file stands in a scope folder, and a `scope:` key agrees with it. Returns
    the folder's scope and whether the atom waits for review ("" when it has none)."""
    place = scope_from_path(relpath)
    if place is None:
        out.error(
            1,
            1,
            "MK012",
            "this file is not in a scope folder (shared/, roles/<role>/, "
            "personal/<user>/, episodic/, archive/)",
        )
        return "", False
    scope, pending = place
    if "scope" in values and values["scope"] != scope:
        line, col = at("scope")
        out.error(
            line,
            col,
            "MK012",
            f"`scope: {values['scope']}` disagrees with the folder, "
            f"which gives `{scope}`; move the file or fix the key",
        )
    return scope, pending


def check_body(body: str, body_line: int, out: Collector) -> None:
    """MK015: something is written below the frontmatter."""
    if not body.strip():
        out.error(
            body_line,
            1,
            "MK015",
            "empty body: write what the atom says below the "
            "frontmatter, starting with a `# Title` line",
        )


def check_length(text: str, config: Config, out: Collector) -> None:
    """MK013: the file has at most `limits.atom_lines` lines."""
    total_lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    if total_lines > config.atom_lines:
        out.error(
            config.atom_lines + 1,
            1,
            "MK013",
            f"atom has {total_lines} lines, more than "
            f"the limit of {config.atom_lines} (limits.atom_lines); split it",
        )


def _kind(value: object) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "empty"
    return type(value).__name__
