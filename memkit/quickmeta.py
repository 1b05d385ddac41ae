"""An atom file's frontmatter as plain strings, fast: its first 64 KB, libyaml's base loader
(every scalar a string, no dates, no comments), no ruamel. For the Claude Code hook path and
for scans of every atom (`memkit.audit.status`, `memkit.lifecycle.catalog`); what is wrong
with a file is `memkit validate`'s to say, here it is only None.
"""

from __future__ import annotations

import os
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
    try:
        import yaml  # noqa: PLC0415

        meta = yaml.load("\n".join(lines[1:end]), Loader=yaml.CBaseLoader)  # noqa: S506
    except Exception:  # unreadable frontmatter
        return None
    return meta if isinstance(meta, dict) else None
