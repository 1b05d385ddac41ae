"""A generation's atom table and vectors, kept in parts: a refresh writes what changed, not
the whole table again.

The generation's `meta.json` (the header: model, what was left out, the parts in order)
names its parts. A part is three files, written once and never changed: `atoms-N.json` (the
meta entries of the atoms it adds, and the paths it takes away from the parts before it),
`vectors-N.npy` (one row per entry) and `keys-N.json` (what the next refresh reads of it:
each entry's blob, and the references of the few atoms that name others). A full build
writes one part. A refresh hard-links the previous generation's parts (never changed, as
tantivy's files) and adds one part with the atoms it indexed, so it writes and seals only
those: at 50,000 atoms the whole table was ~35 MB of JSON and ~50 MB of vectors, read and
rewritten by every refresh.

Parts pile up, and a reader reads them all; the refresh that finds the parts after the first
holding more than SHARE of the rows merges them all into one (a compaction: what every
refresh cost before), and one that finds more than MAX_PARTS merges those after the first.

Reading applies the parts in order: a part's removed paths leave the table, its atoms are
appended. So the rows come grouped by part, each part's vectors in its own order.
"""

from __future__ import annotations

import io
import sys
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memkit.index import store
from memkit.parallel import no_cyclic_gc

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"numpy"}

MAX_PARTS = 24  # beyond it the parts after the first are merged into one
SHARE = 0.2  # rows after the first part, over all rows, that make a refresh compact all
LINKS = ("related", "supersedes", "superseded_by")


def atoms_file(seq: int) -> str:
    return f"atoms-{seq:06d}.json"


def vectors_file(seq: int) -> str:
    return f"vectors-{seq:06d}.npy"


def keys_file(seq: int) -> str:
    return f"keys-{seq:06d}.json"


def files_of(seq: int) -> tuple[str, str, str]:
    return atoms_file(seq), vectors_file(seq), keys_file(seq)


def is_table(rel: str) -> bool:
    """Whether a damaged file makes the atom table unreadable (not only the vectors)."""
    return rel == "meta.json" or (rel.startswith("atoms-") and rel.endswith(".json"))


def is_vectors(rel: str) -> bool:
    return rel.startswith("vectors-") and rel.endswith(".npy")


@dataclass(frozen=True)
class Part:
    """A part as the header lists it: its number, its rows, how many paths it removes."""

    seq: int
    rows: int
    removed: int

    def to_json(self) -> list[int]:
        return [self.seq, self.rows, self.removed]


def parts_of(header: dict[str, Any]) -> list[Part]:
    return [Part(int(seq), int(rows), int(removed)) for seq, rows, removed in header["parts"]]


@dataclass
class Keys:
    """What a refresh reads of a generation: every indexed path's blob, and the references
    of those that name other atoms (path -> [id, related, supersedes, superseded_by])."""

    blobs: dict[str, str]
    links: dict[str, list[Any]]


def link_of(entry: dict[str, Any]) -> list[Any] | None:
    if not any(entry[name] for name in LINKS):
        return None
    return [entry["id"], *(list(entry[name]) for name in LINKS)]


def save_npy(path: Path, array: Any, known: dict[str, list[int]], rel: str) -> None:
    """np.save, with the checksum taken from the bytes as they are written (not read back,
    nor copied)."""
    import numpy as np

    array = np.ascontiguousarray(array)
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, np.lib.format.header_data_from_array_1_0(array))
    head = header.getvalue()
    body = memoryview(array).cast("B") if array.size else memoryview(b"")
    known[rel] = [len(head) + len(body), zlib.crc32(body, zlib.crc32(head))]

    def write(fh: Any) -> None:
        fh.write(head)
        fh.write(body)

    store.write_atomic_with(path, write)


def _save_json(gen: Path, rel: str, data: Any, known: dict[str, list[int]]) -> None:
    raw = store.json_bytes(data)
    known[rel] = [len(raw), zlib.crc32(raw)]
    store.write_bytes_atomic(gen / rel, raw)


def write_part(
    gen: Path,
    seq: int,
    entries: Sequence[dict[str, Any]],
    removed: Iterable[str],
    vectors: Any,
    *,
    known: dict[str, list[int]],
) -> Part:
    """Write part `seq` into `gen` (`vectors`: one row per entry); `known` gets the
    checksums of what was written."""
    gone = sorted(set(removed))
    if len(vectors) != len(entries):
        raise ValueError(f"part {seq}: {len(entries)} atoms but {len(vectors)} vectors")
    _save_json(gen, atoms_file(seq), {"atoms": list(entries), "removed": gone}, known)
    save_npy(gen / vectors_file(seq), vectors, known, vectors_file(seq))
    links = {e["path"]: link for e in entries if (link := link_of(e)) is not None}
    keys = {"blobs": {e["path"]: e["blob"] for e in entries}, "removed": gone, "links": links}
    _save_json(gen, keys_file(seq), keys, known)
    return Part(seq, len(entries), len(gone))


def link_parts(
    previous: Path, gen: Path, parts: Sequence[Part], seal: dict[str, Any]
) -> dict[str, list[int]]:
    """The previous generation's parts, hard-linked into `gen` (a copy where the file system
    has no hard links); returns their seal entries, whose checksums need not be computed."""
    return store.link_files(previous, gen, [r for p in parts for r in files_of(p.seq)], seal)


# Many small records, no cycle among them: the cyclic collector would walk them for nothing.
@no_cyclic_gc()
def read_keys(gen: Path, parts: Sequence[Part]) -> Keys:
    blobs: dict[str, str] = {}
    links: dict[str, list[Any]] = {}
    for part in parts:
        data = store.json_load(gen / keys_file(part.seq))
        for path in data["removed"]:
            blobs.pop(path, None)
            links.pop(path, None)
        for path in data["blobs"]:
            links.pop(path, None)  # an atom indexed again says its references anew
        blobs.update(data["blobs"])
        links.update(data["links"])
    return Keys(blobs, links)


# (part number, its row count, the rows of it no longer in the table)
Pick = tuple[int, int, list[int]]


@no_cyclic_gc()  # as read_keys: tens of thousands of dicts
def read_table(gen: Path, parts: Sequence[Part]) -> tuple[list[dict[str, Any]], list[Pick]]:
    """The generation's atom entries, in row order, and which rows of each part they are.
    Walked from the last part back: a row stays unless a later part indexed its path again
    or removed it (one set look-up a row; the first part holds nearly all)."""
    tables = [store.json_load(gen / atoms_file(part.seq)) for part in parts]
    later: set[str] = set()
    picks: list[Pick] = []
    kept: list[list[dict[str, Any]]] = []
    for part, data in zip(reversed(parts), reversed(tables), strict=True):
        atoms = data["atoms"]
        if later:
            dropped = [row for row, e in enumerate(atoms) if e["path"] in later]
            gone = set(dropped)
            atoms = [e for row, e in enumerate(atoms) if row not in gone] if gone else atoms
        else:
            dropped = []
        picks.append((part.seq, part.rows, dropped))
        kept.append(atoms)
        if part is not parts[0]:
            later.update(e["path"] for e in data["atoms"])
            later.update(data["removed"])
    entries = [entry for atoms in reversed(kept) for entry in atoms]
    # A few distinct values each, one object apiece (~25 MB less at 100,000 atoms).
    for entry in entries:
        for key in ("type", "scope", "status", "confidence", "created"):
            value = entry.get(key)
            if isinstance(value, str):
                entry[key] = sys.intern(value)
    return entries, picks[::-1]


def load_vectors(gen: Path, picks: Sequence[Pick], dim: int) -> Any:
    """The table's vectors, one row per entry of `read_table`: each part's rows read straight
    into one array (no array per part, then a copy of it: 50 MB at 50,000 atoms), the rows
    no longer in the table squeezed out in place. Raises ValueError (or OSError) when a
    part's vectors are not what the header says."""
    import numpy as np

    out = np.empty((sum(rows for _seq, rows, _dropped in picks), dim), dtype=np.float32)
    at = 0
    for seq, rows, dropped in picks:
        _read_rows(gen / vectors_file(seq), out[at : at + rows])
        kept = at
        start = 0
        for end in [*sorted(dropped), rows]:  # the runs of rows kept, moved down in place
            if kept != at + start:
                out[kept : kept + end - start] = out[at + start : at + end]
            kept += end - start
            start = end + 1
        at = kept
    return out[:at]


def _read_rows(path: Path, into: Any) -> None:
    """An .npy file of float32 rows, read into `into` (rows of the same shape)."""
    import numpy as np

    with path.open("rb") as fh:
        version = np.lib.format.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
        else:
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
        if shape != into.shape or fortran or dtype != np.float32:
            raise ValueError(f"{path.name} holds {dtype} {shape}, expected float32 {into.shape}")
        size = into.nbytes
        if size and fh.readinto(memoryview(into).cast("B")) != size:
            raise ValueError(f"{path.name} is shorter than its {shape} rows")


def merge(
    gen: Path,
    parts: Sequence[Part],
    start: int,
    new: tuple[int, int],
    known: dict[str, list[int]],
) -> list[Part]:
    """Parts[start:] of `gen` (two or more) merged into one new part (`new`: its number and
    the vectors' width), written into `gen`; returns the parts that replace them all. From
    0, a compaction: one part, nothing removed."""
    seq, dim = new
    tail = parts[start:]
    entries, picks = read_table(gen, tail)
    vectors = load_vectors(gen, picks, dim)
    removed: set[str] = set()
    if start > 0:  # what the merged parts took away from the parts they follow
        for part in tail:
            removed.update(store.json_load(gen / keys_file(part.seq))["removed"])
    merged = write_part(gen, seq, entries, removed, vectors, known=known)
    for part in tail:
        for rel in files_of(part.seq):
            (gen / rel).unlink(missing_ok=True)
            known.pop(rel, None)
    return [*parts[:start], merged]


def compacted(parts: Sequence[Part]) -> int | None:
    """Where to merge from after a refresh (0: all; 1: all after the first), or None."""
    if len(parts) < 2:
        return None
    later = sum(p.rows + p.removed for p in parts[1:])
    if later > SHARE * max(1, parts[0].rows + later):
        return 0
    if len(parts) > MAX_PARTS:
        return 1
    return None
