"""The index as a short-lived process opens it (a hook without the warm engine, `memkit
search`): tantivy plus a compact column cache.

A generation's meta.json describes every atom in full (5 MB at 10,000 atoms, ~70 ms to parse),
which is most of what a fresh hook process would spend. What recall needs of it is kept
beside the index in `.memkit/columns/<generation>.<python>.marshal`, written the first time a
generation is opened in full, and read back in a few milliseconds. Rows become dicts only
when asked for. The cache is derived: a missing, stale or unreadable one means a full open.
"""

from __future__ import annotations

import contextlib
import marshal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memkit.files import write_atomic
from memkit.index import IndexReader, open_index
from memkit.index.analysis import register
from memkit.index.store import current_generation

SCALARS = ("id", "path", "title", "type", "scope", "status", "confidence", "pending", "chars")
LISTS = ("triggers", "paths", "related", "supersedes", "superseded_by")
FOLDER = "columns"
_EMPTY: list[str] = []


class Atoms:
    """The atom rows of a generation, each a dict built on first use."""

    def __init__(self, columns: dict[str, Any]) -> None:
        self.columns = columns
        self._rows: dict[int, dict[str, Any]] = {}

    def __len__(self) -> int:
        return len(self.columns["id"])

    def __getitem__(self, row: int) -> dict[str, Any]:
        entry = self._rows.get(row)
        if entry is None:
            if row < 0:
                row += len(self)
            entry = {name: self.columns[name][row] for name in SCALARS}
            for name in LISTS:
                entry[name] = self.columns[name].get(row, _EMPTY)
            self._rows[row] = entry
        return entry

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (self[row] for row in range(len(self)))


class LightReader(IndexReader):
    """An IndexReader whose atom table comes from the column cache."""

    def __init__(self, root: Path, gen: Path, columns: dict[str, Any]) -> None:
        # Not IndexReader.__init__: parsing meta.json is what this class exists to avoid.
        import tantivy  # noqa: PLC0415

        self.root = root
        self.gen = gen
        self.generation = gen.name
        self.meta = {"model": columns["model"], "atoms": None, "skipped": columns["skipped"]}
        self.atoms = Atoms(columns)  # type: ignore[assignment]
        self.row_of = {path: row for row, path in enumerate(columns["path"])}
        self._vectors = None
        self.index = tantivy.Index.open(str(gen / "tantivy"))
        register(self.index)
        self.searcher = self.index.searcher()
        self._encoder = None
        self._triggers = [
            (row, [t.lower() for t in triggers if t.strip()])
            for row, triggers in columns["triggers"].items()
        ]


def cache_path(root: Path, gen: Path) -> Path:
    tag = f"py{sys.version_info[0]}{sys.version_info[1]}m{marshal.version}"
    return root / ".memkit" / FOLDER / f"{gen.name}.{tag}.marshal"


def columns_of(reader: IndexReader) -> dict[str, Any]:
    atoms = reader.atoms
    columns: dict[str, Any] = {name: [a[name] for a in atoms] for name in SCALARS}
    for name in LISTS:
        columns[name] = {row: list(a[name]) for row, a in enumerate(atoms) if a.get(name)}
    columns["model"] = reader.meta["model"]
    columns["skipped"] = reader.skipped
    return columns


def open_light(root: Path) -> IndexReader:
    """The current generation, from the column cache when there is one; else in full, and
    the cache is written for the next hook. Raises IndexUnavailable like open_index."""
    gen = current_generation(root)
    if gen is not None:
        path = cache_path(root, gen)
        try:
            # Written by memkit into this user's own .memkit/, as trusted as the index itself.
            columns = marshal.loads(path.read_bytes())  # noqa: S302
            return LightReader(root, gen, columns)
        except (OSError, ValueError, EOFError, TypeError, KeyError):
            pass  # no cache yet, or not one this Python can read
    reader = open_index(root)
    with contextlib.suppress(OSError):
        _write_cache(cache_path(root, reader.gen), columns_of(reader))
    return reader


def _write_cache(path: Path, columns: dict[str, Any]) -> None:
    write_atomic(path, marshal.dumps(columns), durable=False)
    # Caches of generations that are gone only take space.
    index = path.parents[1] / "index"
    for old in path.parent.glob("gen-*.marshal"):
        if old != path and not (index / old.name.split(".")[0]).is_dir():
            old.unlink(missing_ok=True)
