"""tantivy's files across refreshes: the previous generation's, linked, and what a refresh
re-adds so that tantivy never merges the build's segments.

Each refresh commits one small segment. tantivy's merge policy (LogMergePolicy, which
tantivy-py cannot change) merges the segments of a level once it holds eight, and every
segment under ~16,800 documents is in the lowest level: at 10,000 atoms the build's own
segments too, so the refresh that added the eighth segment rewrote the whole index (~0.5 s,
one refresh in seven). A refresh instead re-adds the documents of the newest refresh segments
with its own (a roll-up): those segments are left with no live document, which tantivy drops
at the commit without merging anything, so the lowest level stays under eight segments and
the build's segments are never rewritten by a refresh.

The roll-up keeps the refresh segments' sizes roughly doubling, oldest first (a binary
counter): a document is re-added a few times over many refreshes, and a refresh re-adds a
lot only rarely. Past `ROLL_UP_MAX` documents a roll-up would cost more than tantivy's merge;
then nothing is rolled up and tantivy merges when it must (once in a few hundred changed
atoms), after which every segment counts as the build's again.

The meta header keeps the paths of each refresh segment ("refreshed", oldest first): only
which documents to re-add depends on it, never what the index holds (a roll-up deletes and
re-adds by path), so a list that went stale costs time, not correctness.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memkit.index import store
from memkit.index.schema import document_of, with_cjk

WRITER_HEAP = 64_000_000  # tantivy's indexing memory, at the least; split between its threads
WRITER_HEAP_PER_ATOM = 8_000  # ~4 KB an atom: each thread's share fits in one segment
WRITER_HEAP_MAX = 256_000_000
WRITER_THREADS = 2
# Fewer documents are written with one thread: each thread that got documents leaves a
# segment, and a refresh's documents are to be in one.
ONE_THREAD_BELOW = 1_000
MERGE_AT = 8  # tantivy's LogMergePolicy: min_num_segments
# Below this many live documents a segment is in tantivy's lowest level: its min_layer_size
# (10,000) times 2 ** its level_log_size (0.75).
LOW_LEVEL = 16_818
ROLL_UP_MAX = 900  # documents a refresh may re-add; with its own, under ONE_THREAD_BELOW


@dataclass(frozen=True)
class RollUp:
    """What a refresh does with the earlier refresh segments."""

    keep: list[list[str]]  # refresh segments left as they are, oldest first: their paths
    paths: list[str]  # paths whose documents this refresh re-adds with its own
    base: int  # segments before the refresh that are not refresh segments


def link(previous: Path, gen: Path, seal: dict[str, Any]) -> dict[str, list[int]]:
    """The previous generation's tantivy files, hard-linked (tantivy never changes a file it
    wrote: new segments, deletions and its meta.json are new files). Returns their entries in
    `seal`, the previous generation's, whose checksums need not be computed again."""
    (gen / "tantivy").mkdir()
    names = [p.name for p in (previous / "tantivy").iterdir() if not p.name.endswith(".lock")]
    return store.link_files(previous, gen, [f"tantivy/{name}" for name in names], seal)


def writer(index: Any, documents: int) -> Any:
    """tantivy's writer for `documents` documents. Its memory is a budget, taken as needed;
    a thread that runs out of its share writes a segment and starts another: a full build of
    50,000 atoms with two threads on 64 MB left six segments of 3,000-11,500 atoms, all in
    the lowest level of tantivy's merge policy. With room for each thread's share, a build
    leaves one segment a thread."""
    heap = max(WRITER_HEAP, min(WRITER_HEAP_MAX, documents * WRITER_HEAP_PER_ATOM))
    return index.writer(heap, WRITER_THREADS if documents >= ONE_THREAD_BELOW else 1)


def live_documents(folder: Path) -> list[int]:
    """Each segment's live documents, from tantivy's `meta.json` in `folder`."""
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    counts = []
    for segment in meta.get("segments") or ():
        deletes = segment.get("deletes") or {}
        counts.append(int(segment["max_doc"]) - int(deletes.get("num_deleted_docs") or 0))
    return counts


def plan(
    refreshed: Sequence[Sequence[str]], gone: Collection[str], adding: int, live: Sequence[int]
) -> RollUp:
    """`refreshed`: the paths of each refresh segment, oldest first; `gone`: paths this
    refresh deletes (changed or removed); `adding`: documents it adds; `live`: each segment's
    live documents before it."""
    base = max(0, len(live) - len(refreshed))
    groups = [[p for p in group if p not in gone] for group in refreshed]
    keep = [group for group in groups if group]  # an emptied segment is dropped at the commit
    low = sum(1 for n in live if n < LOW_LEVEL) - len(refreshed)
    room = MERGE_AT - 1 - max(0, low)  # refresh segments the lowest level can take
    paths: list[str] = []
    while keep and adding:  # a refresh that only deletes writes no segment
        top = keep[-1]
        over = len(keep) + 1 > room
        if not over and len(top) > adding + len(paths):
            break  # sizes still double: nothing (more) to roll up
        if adding + len(paths) + len(top) > ROLL_UP_MAX:
            if over:  # too much to re-add: tantivy's merge is cheaper now
                return RollUp(groups, [], base)
            break
        paths[:0] = keep.pop()
    return RollUp(keep, paths, base)


def after(
    roll: RollUp, added: Sequence[str], held: Collection[str], live: Sequence[int]
) -> list[list[str]]:
    """The refresh segments after the commit (`added`: the paths this refresh wrote, `held`:
    those it deleted again; `live`: the segments now). Segments other than the expected ones
    mean tantivy merged (or a build's segment emptied): every segment counts as the build's."""
    kept = [[p for p in group if p not in held] for group in roll.keep]
    new = [p for p in (*roll.paths, *added) if p not in held]
    groups = [group for group in (*kept, new) if group]
    return groups if len(live) == roll.base + len(groups) else []


def stored(searcher: Any, schema: Any, paths: Sequence[str]) -> list[dict[str, str]]:
    """The indexed documents of `paths` as they were added (every field but `cjk` is stored;
    `cjk` is derived from them again)."""
    out = []
    for path in paths:
        doc = document_of(searcher, schema, path)
        if doc is not None:
            out.append(with_cjk({name: values[0] for name, values in doc.to_dict().items()}))
    return out
