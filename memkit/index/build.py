"""Build or refresh the index: re-index only what changed, publish a new generation."""

from __future__ import annotations

import errno
import json
import logging
import os
import re
import time
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memkit.atom import id_from_path
from memkit.config import load_config
from memkit.embedding.locate import resolve_model
from memkit.index import store
from memkit.index.fold import FILE as FOLD_FILE
from memkit.index.fold import digest as fold_digest
from memkit.index.fold import package_table, write_table
from memkit.index.manifest import DIGEST, Running, config_digest, current_manifest, digest
from memkit.index.parts import (
    Part,
    compacted,
    link_of,
    link_parts,
    merge,
    write_part,
)
from memkit.index.previous import BUILD_INFO, Previous, open_previous, verify_since_seal

if TYPE_CHECKING:
    from memkit.index.prepare import Prepared

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {
    "memkit.admission.decide",
    "memkit.embedding.encoder",
    "memkit.embedding.usercache",
    "memkit.index.analysis",
    "memkit.index.prepare",
    "memkit.index.progress",
    "memkit.index.schema",
    "memkit.index.segments",
    "memkit.index.verdicts",
    "numpy",
    "tantivy",
}

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BuildStats:
    atoms: int
    indexed: int
    removed: int
    full: bool
    seconds: float
    generation: str
    changed: bool
    skipped: tuple[str, ...] = ()  # atoms left out because `memkit validate` refuses them
    refused: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # path -> codes


def _os_error(exc: ValueError, folder: Path) -> OSError | None:
    """tantivy reports a full disk or a read-only folder as a ValueError naming the OS error
    ("… (os error 28) …"): the same OSError as any other write, for one clear message. A
    write that failed in its indexing thread says only that the writer was killed ("io::Error
    most likely"): an OSError too, a full disk when `folder`'s file system has no room left."""
    # "… (os error 28) …", or Rust's debug form "Os { code: 28, kind: StorageFull, … }".
    found = re.search(r"\(os error (\d+)\)|\bOs \{ code: (\d+)", str(exc))
    if found is not None:
        code = int(found.group(1) or found.group(2))
        return OSError(code, os.strerror(code))
    if "index writer was killed" not in str(exc) and "io::Error" not in str(exc):
        return None
    try:
        fs = os.statvfs(folder)
        full = fs.f_bavail * fs.f_frsize < 1 << 20
    except OSError:
        full = False
    if full:
        return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return OSError(errno.EIO, f"the index writer failed ({exc})")


def _unchanged(root: Path, stamp: str, model: str, deep: bool) -> BuildStats | None:
    """The live generation's stats when it was built from exactly these files with this
    model and is intact: no reading of its atom table."""
    started = time.perf_counter()
    gen = store.current_generation(root)
    if gen is None:
        return None
    try:
        built_from = (gen / DIGEST).read_text(encoding="utf-8").strip()
        info = json.loads((gen / BUILD_INFO).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # an older build: the full comparison below decides
    seal = store.read_checksums(gen)
    if (
        built_from != stamp
        or not isinstance(info, dict)
        or info.get("model") != model
        or info.get("format") != store.FORMAT  # built by another memkit: read in full below
        or seal is None
        or verify_since_seal(gen, seal, deep)
    ):
        return None
    skipped = tuple(info.get("skipped") or ())
    codes = info.get("refused") or {}
    return BuildStats(
        int(info.get("atoms", 0)),
        0,
        0,
        False,
        time.perf_counter() - started,
        gen.name,
        False,
        skipped,
        {p: tuple(codes.get(p, ())) for p in skipped},
    )


def refresh(
    root: Path,
    *,
    full: bool = False,
    quiet: bool = True,
    wait: bool = True,
    running: Running | None = None,
) -> BuildStats:
    """Bring `<root>/.memkit/index/` up to date with the working tree. `quiet` (git hooks,
    the engine): no output, and the live generation's checksums are trusted unless a file
    changed since its seal (see `verify_since_seal`). Without `wait`, raises store.Busy when another
    process is building. `running`: the manifest's git commands, started by the caller
    (manifest.start_git) to run while it imported what it needs."""

    started = time.perf_counter()
    config = load_config(root)
    model_path = str(resolve_model(config.embedding_model, root))
    with store.write_lock(root, wait=wait):
        manifest = current_manifest(root, running)
        stamp = digest(manifest, config_digest(root))  # what the new generation is built from
        # What its atoms were judged and folded by: memkit.yaml, and the Chinese fold table
        # (a generation's documents are reused only under the same).
        settings = f"{config_digest(root)} fold:{fold_digest(package_table())}"
        if not full:
            same = _unchanged(root, stamp, model_path, not quiet)
            if same is not None:
                return same
        previous = None if full else open_previous(root, model_path, not quiet, settings)
        return _build(
            root,
            manifest,
            previous=previous,
            config=config,
            model_path=model_path,
            settings=settings,
            stamp=stamp,
            quiet=quiet,
            started=started,
        )


def _build(
    root: Path,
    manifest: dict[str, str],
    *,
    previous: Previous | None,
    config: Any,
    model_path: str,
    settings: str,
    stamp: str,
    quiet: bool,
    started: float,
) -> BuildStats:
    from memkit.index.progress import progress_bar

    old_blobs: dict[str, str] = {}
    old_skipped: dict[str, str] = {}
    old_refused: dict[str, list[str]] = {}
    old_held: set[str] = set()
    if previous is not None:
        old_blobs = previous.keys.blobs
        old_skipped = previous.header.get("skipped", {})
        old_refused = previous.header.get("refused", {})
        old_held = set(previous.header.get("held", ()))
    kept = {p for p, blob in manifest.items() if old_blobs.get(p) == blob}
    # Invalid atoms are remembered by blob too, so an unchanged bad file is not re-read
    # and does not make every refresh publish a new generation.
    skipped = {p: b for p, b in manifest.items() if old_skipped.get(p) == b}
    removed = [p for p in old_blobs if p not in kept]
    if (
        previous is not None
        and len(kept) + len(skipped) == len(manifest)
        and not removed
        and len(skipped) == len(old_skipped)
    ):
        refused = {p: list(old_refused.get(p, ())) for p in skipped}
        return _same_again(
            previous.gen,
            stamp,
            model_path=model_path,
            settings=settings,
            kept=kept,
            skipped=skipped,
            refused=refused,
            started=started,
        )
    # Refused for what another file says (a reference, an id): looked at again.
    skipped = {p: b for p, b in skipped.items() if p not in old_held}
    refused = {p: list(old_refused.get(p, ())) for p in skipped}
    todo = [p for p in manifest if p not in kept and p not in skipped]
    with progress_bar(len(todo), enabled=not quiet) as bar:
        gen = store.new_generation(root)
        try:
            count, indexed = _write(
                root,
                gen,
                plan=(manifest, kept, removed, todo, skipped, refused),
                previous=previous,
                config=config,
                model=(model_path, settings),
                stamp=stamp,
                bar=bar,
            )
            store.publish(root, gen)
        except ValueError as exc:
            error = _os_error(exc, gen.parent)  # before the discard frees the space
            store.discard(gen)
            raise error or exc from None
        except BaseException:
            store.discard(gen)
            raise
    if skipped:  # the command says it (`memkit index`); hooks stay quiet
        log.info(
            "%d atom(s) left out of the index because they are invalid (run `memkit validate`)",
            len(skipped),
        )
    return BuildStats(
        count,
        indexed,
        len(removed),
        previous is None,
        time.perf_counter() - started,
        gen.name,
        True,
        tuple(sorted(skipped)),
        {p: tuple(refused.get(p, ())) for p in sorted(skipped)},
    )


def _same_again(
    gen: Path,
    stamp: str,
    *,
    model_path: str,
    settings: str,
    kept: set[str],
    skipped: dict[str, str],
    refused: dict[str, list[str]],
    started: float,
) -> BuildStats:
    """Nothing to index (the digest or build info was missing: a generation from before
    them): record them now, so that the next refresh takes the quick path."""
    if not (gen / DIGEST).is_file():
        store.write_text_atomic(gen / DIGEST, stamp)
    if not (gen / BUILD_INFO).is_file():
        _write_info(gen, (model_path, settings), len(kept), skipped, refused)
    return BuildStats(
        len(kept),
        0,
        0,
        False,
        time.perf_counter() - started,
        gen.name,
        False,
        tuple(sorted(skipped)),
        {p: tuple(refused.get(p, ())) for p in sorted(skipped)},
    )


def _write_info(
    gen: Path,
    model: tuple[str, str],
    atoms: int,
    skipped: dict[str, str],
    refused: dict[str, list[str]],
) -> None:
    """`model`: the model's path and the digest of memkit.yaml the atoms were judged by."""
    info = {
        "format": store.FORMAT,
        "model": model[0],
        "config": model[1],
        "atoms": atoms,
        "skipped": sorted(skipped),
        "refused": {p: refused.get(p, []) for p in sorted(skipped)},
    }
    store.write_text_atomic(gen / BUILD_INFO, json.dumps(info, ensure_ascii=False))


def _still_linked(
    previous: Path, gen: Path, linked: dict[str, list[int]], known: dict[str, list[int]]
) -> dict[str, list[int]]:
    """The linked files' seal entries that still hold: the file is still the previous
    generation's (the same inode). tantivy replaces its `meta.json` and `.managed.json` on
    commit (a new file, renamed over the link), often at the same size: the old checksum,
    taken by size alone, sealed a generation that every full check then found damaged."""
    out = {}
    for rel, entry in linked.items():
        if rel in known:
            continue
        try:
            same = (gen / rel).stat().st_ino == (previous / rel).stat().st_ino
        except OSError:
            same = False
        if same:
            out[rel] = entry
    return out


def _write(
    root: Path,
    gen: Path,
    *,
    plan: tuple[
        dict[str, str], set[str], list[str], list[str], dict[str, str], dict[str, list[str]]
    ],
    previous: Previous | None,
    config: Any,
    model: tuple[str, str],
    stamp: str,
    bar: Callable[[int], None],
) -> tuple[int, int]:
    """Fill `gen`: tantivy, the parts (`memkit.index.parts`), the header, digest, build
    info, seal. `plan`: the manifest, the paths kept from `previous`, those removed, those
    to index, those left out and the codes that refuse them (both filled in here too).
    Returns the atom count and how many were indexed now."""
    import numpy as np
    import tantivy

    from memkit.embedding import load_encoder
    from memkit.embedding.usercache import model_cache_dir
    from memkit.index import segments
    from memkit.index.analysis import register
    from memkit.index.prepare import prepare
    from memkit.index.schema import build_schema
    from memkit.index.verdicts import Verdicts

    manifest, kept, removed, todo, skipped, refused = plan
    known: dict[str, list[int]] = {}
    linked: dict[str, list[int]] = {}  # seal entries of files linked from `previous`
    before: list[Part] = []
    roll = segments.RollUp([], [], 0)
    if previous is not None:
        linked.update(segments.link(previous.gen, gen, previous.seal))
        before = previous.parts
        linked.update(link_parts(previous.gen, gen, before, previous.seal))
        index = tantivy.Index(build_schema(), str(gen / "tantivy"), reuse=True)
        live = segments.live_documents(gen / "tantivy")
        roll = segments.plan(previous.header.get("refreshed") or [], set(removed), len(todo), live)
    else:
        (gen / "tantivy").mkdir()
        index = tantivy.Index(build_schema(), str(gen / "tantivy"), reuse=False)
    register(index)
    again = segments.stored(index.searcher(), index.schema, roll.paths) if roll.paths else []

    def encoder() -> Any:
        return load_encoder(model[0], cache_dir=model_cache_dir(root))

    writer: Any = None

    def to_tantivy(share: Prepared) -> None:
        # tantivy indexes in its own threads while the vectors are computed; two, so that the
        # second process's share, which comes last, takes both cores.
        nonlocal writer
        if writer is None:
            writer = segments.writer(index, len(todo) + len(again))
            for path in removed:
                writer.delete_documents_by_term("path", path)
            for fields in again:  # deleted and added again: their segments are emptied
                writer.delete_documents_by_term("path", fields["path"])
                writer.add_document(tantivy.Document(**fields))
        for fields in share.fields:
            writer.add_document(tantivy.Document(**fields))
        share.fields = []

    verdicts = Verdicts(root, config)
    done = prepare(
        root, todo, manifest, config, encoder, progress=bar, on_first=to_tantivy, kept=verdicts
    )
    to_tantivy(done)
    for path, verdict in done.verdicts.items():
        verdicts.put(path, manifest[path], verdict)
    verdicts.save(manifest)
    for path in done.skipped:
        skipped[path] = manifest[path]
        refused[path] = done.refused.get(path, [])
    links = {p: link for p, link in previous.keys.links.items() if p in kept} if previous else {}
    for e in done.entries:
        if (link := link_of(e)) is not None:
            links[e["path"]] = link
    new_paths = {e["path"] for e in done.entries}
    held = _refused_across(links, kept | new_paths, manifest)
    for path, codes in held.items():
        skipped[path] = manifest[path]
        refused[path] = codes
        writer.delete_documents_by_term("path", path)  # added above, or kept from before
    writer.commit()
    writer.wait_merging_threads()
    added = [e["path"] for e in done.entries]
    now_live = segments.live_documents(gen / "tantivy")
    refreshed = segments.after(roll, added, held, now_live) if previous is not None else []

    dim = int(previous.header["dim"]) if previous is not None else encoder().dim
    vectors = np.concatenate([np.zeros((0, dim), dtype=np.float32), *done.vectors])
    entries = done.entries
    if held:
        live = [i for i, e in enumerate(entries) if e["path"] not in held]
        entries = [entries[i] for i in live]
        vectors = vectors[live]
    gone = [*removed, *(p for p in held if p in kept)]
    now = list(before)
    seq = max((part.seq for part in before), default=0) + 1
    if entries or gone or not now:
        now.append(write_part(gen, seq, entries, gone, vectors, known=known))
        start = compacted(now)
        if start is not None:
            now = merge(gen, now, start, (seq + 1, dim), known)
    count = len(kept) - sum(1 for p in held if p in kept) + len(entries)
    meta = {
        "format": store.FORMAT,
        "model": model[0],
        "dim": dim,
        "built": time.time(),
        "parts": [part.to_json() for part in now],
        "atoms": count,
        "skipped": skipped,
        "refused": {p: refused.get(p, []) for p in skipped},  # path -> the codes
        "held": sorted(held),  # refused for what another file says
        "refreshed": refreshed,  # the paths of each refresh segment (memkit.index.segments)
    }
    data = write_table(gen, package_table())
    known[FOLD_FILE] = [len(data), zlib.crc32(data)]
    data = store.json_bytes(meta)
    known["meta.json"] = [len(data), zlib.crc32(data)]
    store.write_bytes_atomic(gen / "meta.json", data)
    store.write_text_atomic(gen / DIGEST, stamp)
    _write_info(gen, model, count, skipped, refused)
    if previous is not None:
        known.update(_still_linked(previous.gen, gen, linked, known))
    store.write_checksums(gen, known=known)  # last: a generation without it is not finished
    return count, len(entries)


@dataclass(frozen=True)
class _Indexed:
    """An indexed atom, as the reference checks read it."""

    path: str
    id: str
    related: tuple[str, ...]
    supersedes: tuple[str, ...]
    superseded_by: tuple[str, ...]

    def line_of(self, key: str) -> int:
        del key
        return 1


def _refused_across(
    links: Mapping[str, list[Any]], indexed: set[str], manifest: Mapping[str, str]
) -> dict[str, list[str]]:
    """Atoms that `memkit validate` refuses for what other files say (MK009-MK011), among
    those the index would keep (`indexed`; `links`: the references of those that name
    others): path -> codes. Ids come from every atom file's name, as validate takes them;
    supersede cycles are looked for among the atoms admitted so far."""

    from memkit.admission.decide import refused_across

    names = [id_from_path(path) for path in manifest]
    shared = {name for name, n in Counter(names).items() if n > 1}
    # Only an atom that names others, or whose id another file's name takes too, can be
    # refused here: the rest (nearly all) are not looked at one by one on every refresh.
    # An indexed atom's id is its file's name (MK008).
    linked = [_Indexed(p, i, tuple(r), tuple(s), tuple(b)) for p, (i, r, s, b) in links.items()]
    linked += [
        _Indexed(path, name, (), (), ())
        for name, path in zip(names, manifest, strict=True)
        if name in shared and path in indexed and path not in links
    ]
    # The files of the ids they hold or name: all that the checks look up.
    wanted = {a.id for a in linked} | {
        ref for a in linked for ref in (*a.related, *a.supersedes, *a.superseded_by)
    }
    paths_of: dict[str, list[str]] = defaultdict(list)
    for name, path in zip(names, manifest, strict=True):
        if name in wanted:
            paths_of[name].append(path)
    return refused_across(linked, [p for paths in paths_of.values() for p in paths])
