"""An atom file's frontmatter as plain strings, fast: its first 64 KB, libyaml's base loader
(every scalar a string, no dates, no comments), no ruamel. For the Claude Code hook path and
for scans of every atom (`memkit.audit.status`, `memkit.lifecycle.catalog`); what is wrong
with a file is `memkit validate`'s to say, here it is only None.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

HEAD_BYTES = 65_536


def read_meta(path: str | Path) -> dict[str, Any] | None:
    """The frontmatter mapping, or None: not a regular file (a symlink, a FIFO would hang
    the reader), unreadable, no `---` block, not YAML, not a mapping."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        with open(path, "rb") as fh:  # noqa: PTH123
            head = fh.read(HEAD_BYTES).decode("utf-8", "replace")
    except OSError:
        return None
    lines = head.split("\n")
    if not lines or lines[0].strip() != "---":
        return None
    end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), 0)
    if not end:
        return None
    text = "\n".join(lines[1:end])
    simple = _simple(lines[1:end])
    if simple is not None:
        return simple
    try:
        import yaml  # noqa: PLC0415

        meta = yaml.load(text, Loader=yaml.CBaseLoader)  # noqa: S506
    except Exception:  # unreadable frontmatter
        return None
    return meta if isinstance(meta, dict) else None


# What most frontmatter is: `key: plain`, `key: 'quoted'`, `key: [a, b]`, comments. Parsed
# here, ~20x faster than libyaml's loader, whose constructor is Python; anything else (block
# lists, escapes, anchors, nesting) goes to libyaml. Both give the same strings.
_KEY = re.compile(r"([A-Za-z0-9_][\w.-]*):(?:[ \t]+(.*))?")
_COMMENT = r"(?:[ \t]+#.*)?"
_SINGLE = re.compile(r"'([^']*)'" + _COMMENT)
_DOUBLE = re.compile(r'"([^"\\]*)"' + _COMMENT)
_FLOW = re.compile(r"\[([^\[\]{}'\"#:]*)\]" + _COMMENT)
_PLAIN = re.compile(r"([^\s#'\"\[\]{}&*!|>%@`,?:-][^#:]*?|-[^\s#:][^#:]*?)?" + _COMMENT)


def _simple(lines: list[str]) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key = _KEY.fullmatch(line.rstrip())
        if key is None:
            return None
        value = (key.group(2) or "").strip()
        if key.group(1) in out:
            return None  # a duplicate key: libyaml's answer, whatever it is
        for pattern in (_SINGLE, _DOUBLE, _PLAIN):
            found = pattern.fullmatch(value)
            if found is not None:
                out[key.group(1)] = (found.group(1) or "").strip()
                break
        else:
            flow = _FLOW.fullmatch(value)
            if flow is None:
                return None
            items = [item.strip() for item in flow.group(1).split(",")]
            if any(not item or item[0] in "&*!|>%@`-?" for item in items[:-1]) or (
                items[-1] and items[-1][0] in "&*!|>%@`-?"
            ):
                return None
            out[key.group(1)] = [item for item in items if item]
    return out
