"""Atoms found by file: an atom's `paths:` globs against the file paths a query names.

PreToolUse gives an atom whose globs match the file about to be read; a person or an agent
asking about the file ("why does src/net/conn.py time out?", the MCP `search` for
`src/net/conn.py`, `memkit search conn.py`) finds it the same way. A path in a query is a
word with a `/` or a file name with an extension; an absolute path or one from another folder
matches by its tail (`/home/alice/app/src/net/conn.py` is matched as `src/net/conn.py`,
`net/conn.py` and `conn.py` too). Standard library only: the prompt hook runs this.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from memkit.globs import glob_re

# A path (a word with a `/`, absolute or not) or a file name with an extension that starts
# with a letter (`conn.py`, `settings.prod.yaml`; not `1.2.3`, not `e.g.`); never a URL.
_PATH = re.compile(
    r"(?<![\w:/.~-])~?/?(?:[\w.-]+/)+[\w.*-]*[\w*]"
    r"|(?<![\w/.-])[\w-]{2,}(?:\.[\w-]+)*\.[A-Za-z][\w-]{0,9}\b(?!/)"
)
MAX_PATHS = 8  # path-like words of one query looked at


def matching_glob(globs: Iterable[str], path: str) -> str | None:
    """The first of `globs` that `path` (relative, `/`-separated) matches, or None."""
    return next((g for g in globs if glob_re(g).match(path)), None)


def query_paths(query: str) -> list[str]:
    """The file paths `query` names, each with its shorter tails, longest first."""
    if "/" not in query and "." not in query:
        return []  # most prompts: nothing to look at
    out: dict[str, None] = {}
    for found in _PATH.findall(query)[:MAX_PATHS]:
        path = found.lstrip("~").strip("./")
        parts = [p for p in path.split("/") if p and p != "."]
        for i in range(len(parts)):
            tail = parts[i:]
            if len(tail) > 1 or "." in tail[0]:  # `or` of `and/or` is no file
                out["/".join(tail)] = None
    return list(out)


def with_paths(
    ranked: list[tuple[int, float, str]], found: dict[int, str], bonus: float
) -> list[tuple[int, float, str]]:
    """A fused ranking (row, score, why) with the rows a path of the query matched lifted by
    `bonus` (as an exact trigger is) and their reason first; rows only a path found added."""
    if not found:
        return ranked
    out = []
    for row, score, why in ranked:
        if row in found:
            out.append((row, score + bonus, f"{found[row]}; {why}" if why else found[row]))
        else:
            out.append((row, score, why))
    seen = {row for row, _, _ in ranked}
    out += [(row, bonus, why) for row, why in found.items() if row not in seen]
    return sorted(out, key=lambda x: (-x[1], x[0]))


def path_matches(rows: Iterable[tuple[int, list[str]]], query: str) -> dict[int, str]:
    """Of (row, globs) pairs, the rows whose globs match a path of `query`, each with its
    reason ("paths 'src/net/**' matches src/net/conn.py")."""
    wanted = query_paths(query)
    if not wanted:
        return {}
    found: dict[int, str] = {}
    for row, globs in rows:
        for path in wanted:
            glob = matching_glob(globs, path)
            if glob is not None:
                found[row] = f"paths '{glob}' matches {path}"
                break
    return found
