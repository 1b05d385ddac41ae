"""The index as a short-lived process opens it (a hook without the warm engine, `memkit
search`): tantivy plus a compact column cache.

A generation's atom table describes every atom in full (5 MB at 10,000 atoms, ~70 ms to parse),
which is most of what a fresh hook process would spend. What recall needs of it is kept
beside the index in `.memkit/columns/<build id>.<python>.marshal`, written the first time a
generation is opened in full, and read back in a few milliseconds. Rows become dicts only
when asked for. The cache is derived: a missing, stale or unreadable one means a full open.
It is keyed by the generation's build id, never by its reusable name: after `.memkit/index/`
is deleted and rebuilt, the new `gen-000001` is not the old one. A generation without a build
id (built by an older memkit) is always opened in full.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memkit.files import memkit_dir, write_atomic
from memkit.index import IndexReader, open_index
from memkit.index.parts import is_table
from memkit.index.search import IndexDamaged
from memkit.index.store import (
    CHECKSUMS,
    FORMAT,
    current_generation,
    describe,
    read_checksums,
    verify,
)
from memkit.parallel import no_cyclic_gc

SCALARS = (
    "id",
    "path",
    "title",
    "type",
    "scope",
    "status",
    "confidence",
    "pending",
    "chars",
    "expires",
    "author",
)
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

    def __init__(
        self, root: Path, gen: Path, columns: dict[str, Any], seal: dict[str, Any]
    ) -> None:
        # Not IndexReader.__init__: parsing meta.json is what this class exists to avoid.
        self.root = root
        self.gen = gen
        self.generation = gen.name
        self.seal = seal
        self.build = seal["build"]
        self.problems = verify(gen, deep="changed", seal=seal)
        if CHECKSUMS in self.problems or any(map(is_table, self.problems)):
            raise IndexDamaged(f"{gen}: {describe(self.problems)}")
        self.meta = {
            "model": columns["model"],
            "atoms": None,
            "skipped": columns["skipped"],
            "refused": columns.get("refused", {}),
            "dim": columns.get("dim"),
            "picks": columns["picks"],
        }
        self.columns = columns
        self._folds = []  # the generation's fold table, once a CJK text needs it
        self.atoms = Atoms(columns)  # type: ignore[assignment]
        self.row_of = {path: row for row, path in enumerate(columns["path"])}
        self._open_rest()
        by_word, by_char = columns["trigger_index"]
        self._trigger_rows = (by_word, by_char)
        self._triggers = []  # what the full reader indexes them from: ready-made here

    @property
    def superseded(self) -> frozenset[str]:
        # From the sparse columns: only the rows that have such a list are looked at.
        if self._superseded is None:
            ids, status, pending = (self.columns[k] for k in ("id", "status", "pending"))
            self._superseded = frozenset(
                [
                    old
                    for row, olds in self.columns["supersedes"].items()
                    if status[row] == "active" and not pending[row]
                    for old in olds
                ]
                + [ids[row] for row in self.columns["superseded_by"]]
            )
        return self._superseded


def cache_path(root: Path, build: str) -> Path:
    tag = f"py{sys.version_info[0]}{sys.version_info[1]}m{marshal.version}"
    return root / ".memkit" / FOLDER / f"{build}.{tag}.marshal"


def columns_of(reader: IndexReader) -> dict[str, Any]:
    atoms = reader.atoms
    columns: dict[str, Any] = {name: [a[name] for a in atoms] for name in SCALARS}
    for name in ("type", "scope", "status", "confidence"):
        # A few distinct values: one object each, which marshal then writes once.
        columns[name] = [sys.intern(v) if isinstance(v, str) else v for v in columns[name]]
    for name in LISTS:
        columns[name] = {row: list(a[name]) for row, a in enumerate(atoms) if a.get(name)}
    columns["model"] = reader.meta["model"]
    columns["dim"] = reader.meta.get("dim")
    columns["picks"] = reader.meta["picks"]  # which rows of each part's vectors
    columns["skipped"] = reader.skipped
    columns["refused"] = reader.refusals
    columns["build"] = reader.build
    # The trigger look-up, ready: a fresh hook or search would otherwise build it (or scan
    # every atom's triggers) for its one prompt.
    columns["trigger_index"] = reader.trigger_index()
    columns["format"] = FORMAT
    return columns


def open_light(root: Path) -> IndexReader:
    """The current generation, from the column cache when there is one; else in full, and
    the cache is written for the next hook. Raises IndexUnavailable like open_index."""
    # The columns are ~10 objects an atom and no cycle: the cyclic collector would look
    # through them all again and again (100,000 atoms: 0.15 s instead of 0.11 s).
    with no_cyclic_gc():
        return _open_light(root)


def _open_light(root: Path) -> IndexReader:
    gen = current_generation(root)
    seal = read_checksums(gen) if gen is not None else None
    if gen is not None and seal is not None:
        path = cache_path(root, seal["build"])
        try:
            # Only a cache this user wrote: marshal is not safe against crafted input.
            if path.stat().st_uid == os.geteuid():
                columns = marshal.loads(path.read_bytes())  # noqa: S302
                if (
                    columns.get("build") == seal["build"]
                    and columns.get("format") == FORMAT
                    and "trigger_index" in columns
                    and "picks" in columns
                ):
                    return LightReader(root, gen, columns, seal)
        except (OSError, ValueError, EOFError, TypeError, KeyError, AttributeError):
            pass  # no cache yet, or not one this Python can read
    reader = open_index(root)
    if reader.build and not reader.damage:
        with contextlib.suppress(OSError):
            _write_cache(root, cache_path(root, reader.build), columns_of(reader))
    return reader


def _write_cache(root: Path, path: Path, columns: dict[str, Any]) -> None:
    memkit_dir(root)
    write_atomic(path, marshal.dumps(columns), durable=False)
    # Caches of generations that are gone only take space.
    builds = set()
    for gen in (root / ".memkit" / "index").glob("gen-*"):
        seal = read_checksums(gen) if (gen / CHECKSUMS).is_file() else None
        if seal is not None:
            builds.add(seal["build"])
    for old in path.parent.glob("*.marshal"):
        if old != path and old.name.split(".")[0] not in builds:
            old.unlink(missing_ok=True)
