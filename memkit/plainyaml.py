"""Frontmatter in the plain subset of YAML that atoms are written in, read without a YAML
library: `key: value`, `key: [a, b]`, block lists of `- item`, quotes, comments.

ruamel's round-trip loader costs ~1-2 ms an atom, ~10-20 s for a whole repository of 10,000;
this reads the same keys, values and key lines in ~20 us. It answers only when it is sure to
read what ruamel reads (YAML 1.2): every value a string or a list of strings, nothing a YAML
resolver would turn into a number, a boolean, a null or a timestamp, except a real
`YYYY-MM-DD` date, returned as the `datetime.date` ruamel makes of it. Anything else (anchors,
tags, block scalars, nested mappings, odd characters, a duplicate key, …) returns None, and
the caller uses ruamel, which also says what is wrong. tests/plainyaml_test.py compares both
on generated frontmatter.
"""

from __future__ import annotations

import datetime as dt
import re

_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*):(?:( +)(.*))?$")
_ITEM = re.compile(r"^( *)- +(.*)$")
# YAML's printable characters, without tab, CR, NEL and the BOM (ruamel's business).
# Line and paragraph separators too: ruamel reads them as line breaks.
_UNPRINTABLE = re.compile(
    "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)
_INDICATOR = frozenset("-?:,[]{}#&*!|>'\"%@`")
# What a YAML 1.1 or 1.2 resolver may read as other than a string (conservatively: both).
_RESOLVED = re.compile(
    r"[-+]?[0-9._]+(?:[eE][-+]?[0-9]+)?"
    r"|0[xXoObB][0-9A-Fa-f_]+"
    r"|[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)"
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?"
    r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+).*)?"
    r"|(?i:y|yes|n|no|true|false|on|off|null|~)|<<|="
)
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _real_date(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


def _strip_comment(text: str) -> str:
    """`value  # note` -> `value`; a `#` inside a word (`C#`) is text."""
    cut = text.find(" #")
    return (text if cut < 0 else text[:cut]).rstrip(" ")


def _plain(text: str, *, flow: bool, listed: bool = False) -> str | dt.date | None:
    """A plain scalar's string, or None when YAML could read it otherwise. A date in a list
    is left to ruamel: the list of an unknown key is kept as its Python text."""
    if not text or text[0] in _INDICATOR or text[-1] == ":" or ": " in text:
        return None
    if flow and (any(c in text for c in ",[]{}#") or ":" in text):
        return None
    if _RESOLVED.fullmatch(text):
        if listed or _DATE.fullmatch(text) is None:
            return None
        return _real_date(text)  # ruamel raises on an impossible one: it reports that
    return text


def _quoted(text: str, *, flow: bool) -> str | None:
    quote = text[0]
    if len(text) < 2 or text[-1] != quote:
        return None
    inner = text[1:-1]
    if flow and any(c in inner for c in ",[]{}"):
        return None
    if quote == '"':
        return None if '"' in inner or "\\" in inner else inner
    if "'" in inner.replace("''", ""):
        return None
    return inner.replace("''", "'")


def _scalar(text: str, *, flow: bool, listed: bool = False) -> str | dt.date | None:
    if text[:1] in ("'", '"'):
        return _quoted(text, flow=flow)
    return _plain(text, flow=flow, listed=listed)


def _flow_list(text: str) -> list[str] | None:
    if not text.endswith("]") or text.count("[") != 1 or text.count("]") != 1:
        return None
    inner = text[1:-1].strip(" ")
    if not inner:
        return []
    out = []
    for part in inner.split(","):
        value = _scalar(part.strip(" "), flow=True, listed=True)
        if not isinstance(value, str):
            return None
        out.append(value)
    return out


Value = str | dt.date | list[str]


def read(yaml_text: str) -> tuple[dict[str, Value], dict[str, int]] | None:
    """The mapping of a frontmatter block and each key's line (0-based within the block),
    or None when only a YAML library can say what it holds."""
    if _UNPRINTABLE.search(yaml_text):
        return None
    values: dict[str, Value] = {}
    lines: dict[str, int] = {}
    pending = ""  # a key whose value is a block list still being read
    indent = -1
    for number, line in enumerate(yaml_text.split("\n")):
        stripped = line.strip(" ")
        if not stripped or stripped[0] == "#":
            continue
        item = _ITEM.match(line) if pending else None
        if item is not None:
            if indent not in (-1, len(item.group(1))):
                return None
            indent = len(item.group(1))
            value = _scalar(_strip_comment(item.group(2)), flow=False, listed=True)
            if not isinstance(value, str):
                return None
            entries = values[pending]
            if not isinstance(entries, list):  # cannot be: `pending` names a list
                return None
            entries.append(value)
            continue
        if pending and not values[pending]:
            return None  # `key:` with nothing under it is null
        pending, indent = "", -1
        found = _KEY.match(line)
        if found is None:
            return None
        key, text = found.group(1), _strip_comment(found.group(3) or "")
        if key in values or _RESOLVED.fullmatch(key):
            return None  # a duplicate (ruamel says where), or a key YAML reads as a value
        lines[key] = number
        if not text:
            values[key] = []
            pending = key
        elif text[0] == "[":
            listed = _flow_list(text)
            if listed is None:
                return None
            values[key] = listed
        else:
            scalar = _scalar(text, flow=False)
            if scalar is None:
                return None
            values[key] = scalar
    if (pending and not values[pending]) or not values:
        return None
    return values, lines
