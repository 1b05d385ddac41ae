"""`paths:` globs as regular expressions: `**` any folders, `*` within one folder, `?` one
character. Standard library only: the PreToolUse hook matches with it."""

from __future__ import annotations

import functools
import re


@functools.lru_cache(maxsize=512)
def glob_re(pattern: str) -> re.Pattern[str]:
    """A whole relative path matching `pattern`."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")
