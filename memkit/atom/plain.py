"""Frontmatter in the plain subset of YAML that atoms are written in, read without a YAML
library: `key: value`, `key: [a, b]`, block lists of `- item`, quotes, comments. One reader,
two readings of the same lines:

- `read` (validation and the index) reads what ruamel's round-trip loader reads (YAML 1.2),
  with each key's line. It answers only when it is sure to: every value a string or a list
  of strings, nothing a YAML resolver would turn into a number, a boolean, a null or a
  timestamp, except a real `YYYY-MM-DD` date, returned as the `datetime.date` ruamel makes
  of it. ruamel costs ~1-2 ms an atom (10-20 s for 10,000), this ~10 us.
- `read_strings` (scans of every atom: `memkit.lifecycle.catalog`, `memkit.audit.status`
  on the hook path) reads what libyaml's base loader reads: every scalar a string (`yes`,
  `1.5`, a date: their text; `key:` alone ""), no key lines. `read_meta` reads a file's
  head with it and hands what it does not take on to libyaml (~20x slower: its
  constructor is Python).

Anything else (anchors, tags, block scalars, nested mappings, odd characters, a duplicate
key, …) is None, and the caller asks a YAML library, which also says what is wrong.
tests/atom/plain_frontmatter_test.py compares `read` with ruamel and `read_strings` with libyaml on
generated frontmatter; tests/atom/plain_meta_test.py `read_meta` with libyaml.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import stat
from pathlib import Path
from typing import Any, cast

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"yaml"}


_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?:[ \t]+(.*))?")
_ITEM = re.compile(r"( *)- +([^ \t].*)")
# YAML's printable characters, without CR, NEL and the BOM (a YAML library's business), and
# for ruamel's reading without tab (ruamel refuses tabs where libyaml takes them as spaces).
# Line and paragraph separators too: YAML libraries read them as line breaks.
_PRINTABLE = "\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff"
_UNPRINTABLE = re.compile(f"[^\n{_PRINTABLE}]")
_UNPRINTABLE_BUT_TAB = re.compile(f"[^\n\t{_PRINTABLE}]")
_INDICATOR = frozenset("-?:,[]{}#&*!|>'\"%@`")
_FLOW_INDICATOR = re.compile(r"[,\[\]{}#:]")
# What a YAML 1.1 or 1.2 resolver may read as other than a string (conservatively: both).
_RESOLVED = re.compile(
    r"[-+]?[0-9._]+(?:[eE][-+]?[0-9]+)?"
    r"|0[xXoObB][0-9A-Fa-f_]+"
    r"|[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)"
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?"
    r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+).*)?"
    r"|(?i:y|yes|n|no|true|false|on|off|null|~)|<<|="
)
# Only these can open a text `_RESOLVED` matches: a cheap look before the expression.
_RESOLVED_FIRST = frozenset("-+0123456789._~<=")
_RESOLVED_WORDS = frozenset(("y", "yes", "n", "no", "true", "false", "on", "off", "null"))
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")

Value = str | dt.date | list[str]
StringValue = str | list[str]


def read(yaml_text: str) -> tuple[dict[str, Value], dict[str, int]] | None:
    """The mapping of a frontmatter block as ruamel reads it, and each key's line (0-based
    within the block), or None when only a YAML library can say what it holds."""
    if _UNPRINTABLE.search(yaml_text):
        return None
    return _read(yaml_text, strings=False)


def read_strings(yaml_text: str) -> dict[str, StringValue] | None:
    """The mapping of a frontmatter block as libyaml's base loader reads it (every scalar a
    string), or None when only libyaml can say what it holds."""
    if _UNPRINTABLE_BUT_TAB.search(yaml_text):
        return None
    read = _read(yaml_text, strings=True)
    return None if read is None else cast(dict[str, StringValue], read[0])  # no dates here


HEAD_BYTES = 65_536


def read_meta(path: str | Path) -> dict[str, Any] | None:
    """An atom file's frontmatter, every value a string (`read_strings`, else libyaml's base
    loader), from its first 64 KB; None when it is not a regular file (a symlink; a FIFO
    would hang the reader), unreadable, has no `---` block, is not YAML or not a mapping.
    What is wrong with the file is `memkit validate`'s to say."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        with open(path, "rb") as fh:  # noqa: PTH123
            head = fh.read(HEAD_BYTES).decode("utf-8", "replace")
    except OSError:
        return None
    lines = head.replace("\r\n", "\n").split("\n")
    if not lines or lines[0].strip() != "---":
        return None
    end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), 0)
    if not end:
        return None
    text = "\n".join(lines[1:end])
    simple = read_strings(text)
    if simple is not None:
        return simple
    try:
        import yaml

        meta = yaml.load(text, Loader=yaml.CBaseLoader)  # noqa: S506
    except Exception:  # unreadable frontmatter
        return None
    return meta if isinstance(meta, dict) else None


def _read(yaml_text: str, *, strings: bool) -> tuple[dict[str, Value], dict[str, int]] | None:
    values: dict[str, Value] = {}
    lines: dict[str, int] = {}
    pending = ""  # a key whose value is a block list still being read
    indent = -1
    for number, line in enumerate(yaml_text.split("\n")):
        stripped = line.strip(" ")
        if not stripped or stripped[0] == "#":
            continue
        item = _ITEM.fullmatch(line) if pending else None
        if item is not None:
            if indent not in (-1, len(item.group(1))):
                return None
            indent = len(item.group(1))
            text = _uncommented(item.group(2))
            value = None if text is None else _scalar(text, strings, flow=False, listed=True)
            if not isinstance(value, str):
                return None
            entries = values[pending]
            if not isinstance(entries, list):  # cannot be: `pending` names a list
                return None
            entries.append(value)
            continue
        if pending and not values[pending]:
            if not strings:
                return None  # `key:` with nothing under it is null
            values[pending] = ""
        pending, indent = "", -1
        found = _KEY.fullmatch(line)
        if found is None:
            return None
        key = found.group(1)
        if key in values or (not strings and _resolves(key)):
            return None  # a duplicate (the library says where), or a key YAML reads as a value
        lines[key] = number
        text = _uncommented(found.group(2) or "")
        if text is None:
            return None
        if not text:
            values[key] = []
            pending = key
        elif text[0] == "[":
            listed = _flow_list(text, strings)
            if listed is None:
                return None
            values[key] = listed
        else:
            scalar = _scalar(text, strings, flow=False)
            if scalar is None:
                return None
            values[key] = scalar
    if pending and not values[pending]:
        if not strings:
            return None
        values[pending] = ""
    if not values and not strings:
        return None
    return values, lines


def _uncommented(text: str) -> str | None:
    """`value  # note` -> `value`; a `#` inside a word (`C#`) or inside quotes is text. None
    when something follows a quoted value other than a comment."""
    if text[:1] in ("'", '"'):
        end = _closing_quote(text)
        if end < 0:
            return None
        rest = text[end + 1 :].lstrip(" \t")
        if rest and (rest[0] != "#" or text[end + 1] not in " \t"):
            return None
        return text[: end + 1]
    if "#" in text:
        cut = text.find(" #")
        if "\t" in text:
            tab = text.find("\t#")
            cut = tab if cut < 0 or 0 <= tab < cut else cut
        if cut >= 0:
            text = text[:cut]
    return text.rstrip(" \t")


def _closing_quote(text: str) -> int:
    quote = text[0]
    end = text.find(quote, 1)
    if quote == "'":
        while end > 0 and text[end + 1 : end + 2] == "'":  # '' is a quote inside
            end = text.find("'", end + 2)
    return end


def _resolves(text: str) -> bool:
    """Whether a YAML resolver may read `text` as other than a string."""
    if text[0] not in _RESOLVED_FIRST and text.lower() not in _RESOLVED_WORDS:
        return False
    return _RESOLVED.fullmatch(text) is not None


def _real_date(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


def _plain(text: str, strings: bool, *, flow: bool, listed: bool) -> str | dt.date | None:
    """A plain scalar's string, or None when YAML could read it otherwise. A date in a list
    is left to ruamel: the list of an unknown key is kept as its Python text."""
    first = text[0]
    if first in _INDICATOR and not (first == "-" and text[1:2].isalnum()):
        return None  # `-x` is text, `- x` a list, `-` and `--` left to the library
    if ":" in text and (text[-1] == ":" or ": " in text or ":\t" in text):
        return None
    if flow and _FLOW_INDICATOR.search(text):
        return None
    if strings or not _resolves(text):
        return text
    if listed or _DATE.fullmatch(text) is None:
        return None
    return _real_date(text)  # ruamel raises on an impossible one: it reports that


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


def _scalar(text: str, strings: bool, *, flow: bool, listed: bool = False) -> str | dt.date | None:
    if not text:
        return None
    if text[0] in ("'", '"'):
        return _quoted(text, flow=flow)
    return _plain(text, strings, flow=flow, listed=listed)


def _flow_list(text: str, strings: bool) -> list[str] | None:
    if not text.endswith("]") or text.count("[") != 1 or text.count("]") != 1:
        return None
    inner = text[1:-1].strip(" \t")
    if not inner:
        return []
    parts = inner.split(",")
    if len(parts) > 1 and not parts[-1].strip(" \t"):
        parts.pop()  # `[a, b, ]`: a trailing comma ends the list
    out = []
    for part in parts:
        value = _scalar(part.strip(" \t"), strings, flow=True, listed=True)
        if not isinstance(value, str):
            return None
        out.append(value)
    return out
