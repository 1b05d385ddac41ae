"""Build or refresh the index: re-index only what changed, publish a new generation."""

from __future__ import annotations

import logging
import shutil
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memkit.atom import Atom
from memkit.checks.admission import read_admitted, reference_findings, supersede_cycle
from memkit.config import load_config
from memkit.index import store
from memkit.index.analysis import cjk_text, register
from memkit.index.manifest import DIGEST, current_manifest, digest
from memkit.index.schema import build_schema
from memkit.vectors import atom_text

log = logging.getLogger(__name__)
WRITER_HEAP = 64_000_000


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


def _entry(atom: Atom, blob: str) -> dict[str, Any]:
    return {
        "id": atom.id,
        "path": atom.path,
        "title": atom.title,
        "type": atom.type,
        "scope": atom.scope,
        "status": atom.status,
        "confidence": atom.confidence,
        "pending": atom.pending,
        "triggers": list(atom.triggers),
        "paths": list(atom.paths),
        "related": list(atom.related),
        "supersedes": list(atom.supersedes),
        "superseded_by": list(atom.superseded_by),
        "created": atom.created,
        "expires": atom.expires,
        "author": atom.author,
        "blob": blob,
        "chars": len(atom.body),
        "sections": [
            {
                "heading": s.heading,
                "level": s.level,
                "line": s.line,
                "end_line": s.end_line,
                "chars": len(s.text),
            }
            for s in atom.sections
        ],
    }


@dataclass(frozen=True)
class _Indexed:
    """An atom of the previous generation, as the reference checks need it."""

    path: str
    id: str
    related: tuple[str, ...]
    supersedes: tuple[str, ...]
    superseded_by: tuple[str, ...]

    def line_of(self, key: str) -> int:
        del key
        return 1


def _refused_across(
    kept: list[dict[str, Any]], atoms: list[Atom], manifest: Mapping[str, str]
) -> dict[str, list[str]]:
    """Atoms that `memkit validate` refuses for what other files say (MK009-MK011), among
    those the index would keep: path -> codes. Ids come from every atom file's name, as
    validate takes them; supersede cycles are looked for among the atoms admitted so far."""
    from collections import defaultdict  # noqa: PLC0415

    from memkit.atom import id_from_path  # noqa: PLC0415

    paths_of: dict[str, list[str]] = defaultdict(list)
    for path in manifest:
        paths_of[id_from_path(path)].append(path)
    every: list[Any] = [
        _Indexed(
            e["path"],
            e["id"],
            tuple(e["related"]),
            tuple(e["supersedes"]),
            tuple(e["superseded_by"]),
        )
        for e in kept
    ]
    every += atoms
    graph: dict[str, set[str]] = defaultdict(set)
    for atom in every:
        graph[atom.id].update(atom.supersedes)
        for newer in atom.superseded_by:
            graph[newer].add(atom.id)
    held: dict[str, list[str]] = {}
    for atom in every:
        linked = atom.supersedes or atom.superseded_by
        cycle = supersede_cycle(atom.id, graph) if linked else []
        codes = sorted({f.code for f in reference_findings(atom, paths_of, cycle)})
        if codes:
            held[atom.path] = codes
    return held


def _document(atom: Atom) -> Any:
    import tantivy  # noqa: PLC0415

    return tantivy.Document(
        id=atom.id,
        path=atom.path,
        title=atom.title,
        triggers=" ".join(atom.triggers),
        tags=" ".join(atom.tags),
        body=atom.body,
        cjk=cjk_text(" ".join((atom.title, *atom.triggers, *atom.tags, atom.body))),
        scope=atom.scope,
        type=atom.type,
        status=atom.status,
        confidence=atom.confidence,
    )


def _os_error(exc: ValueError) -> OSError | None:
    """tantivy reports a full disk or a read-only folder as a ValueError naming the OS error
    ("… (os error 28) …"): the same OSError as any other write, for one clear message."""
    import re  # noqa: PLC0415

    found = re.search(r"\(os error (\d+)\)", str(exc))
    if found is None:
        return None
    code = int(found.group(1))
    import os  # noqa: PLC0415

    return OSError(code, os.strerror(code))


def _open_previous(root: Path, model: str) -> tuple[Path, dict[str, Any]] | None:
    """The live generation to build on, when it can be trusted: sealed, every file intact
    (an incremental build copies its tantivy files, and would copy damage along)."""
    gen = store.current_generation(root)
    if gen is None:
        return None
    seal = store.read_checksums(gen)
    if seal is None:
        log.info("index generation %s has no checksums (an older build); rebuilding", gen)
        return None
    problems = store.verify(gen, deep=True, seal=seal)
    if problems:
        log.warning(
            "index generation %s is damaged (%s); rebuilding from scratch",
            gen,
            store.describe(problems),
        )
        return None
    try:
        meta = store.read_meta(gen)
        import numpy as np  # noqa: PLC0415

        vectors = np.load(gen / "vectors.npy", mmap_mode="r")
        if vectors.shape[0] != len(meta["atoms"]) or meta.get("model") != model:
            return None
    except store.OutdatedIndex:
        log.info("index generation %s was built by another memkit version; rebuilding", gen)
        return None
    except (OSError, ValueError, KeyError):
        log.warning("index generation %s is unreadable; rebuilding from scratch", gen)
        return None
    return gen, meta


def refresh(root: Path, *, full: bool = False, quiet: bool = True) -> BuildStats:
    """Bring `<root>/.memkit/index/` up to date with the working tree."""
    import numpy as np  # noqa: PLC0415
    import tantivy  # noqa: PLC0415

    from memkit.embedding import encode_bulk, load_encoder, resolve_model  # noqa: PLC0415

    started = time.perf_counter()
    config = load_config(root)
    model_path = str(resolve_model(config.embedding_model, root))
    show = not quiet and sys.stderr.isatty()
    with store.write_lock(root):
        manifest = current_manifest(root)
        previous = None if full else _open_previous(root, model_path)
        old_atoms: dict[str, dict[str, Any]] = {}
        old_skipped: dict[str, str] = {}
        old_refused: dict[str, list[str]] = {}
        old_held: set[str] = set()
        if previous is not None:
            old_atoms = {a["path"]: a for a in previous[1]["atoms"]}
            old_skipped = previous[1].get("skipped", {})
            old_refused = previous[1].get("refused", {})
            old_held = set(previous[1].get("held", ()))
        keep = [p for p in manifest if p in old_atoms and old_atoms[p]["blob"] == manifest[p]]
        # Invalid atoms are remembered by blob too, so an unchanged bad file is not re-read
        # and does not make every refresh publish a new generation.
        skipped = {p: b for p, b in manifest.items() if old_skipped.get(p) == b}
        if (
            previous is not None
            and len(keep) + len(skipped) == len(manifest)
            and len(keep) == len(old_atoms)
            and len(skipped) == len(old_skipped)
        ):
            if not (previous[0] / DIGEST).is_file():  # a generation from before digests
                store.write_text_atomic(previous[0] / DIGEST, digest(manifest))
            return BuildStats(
                len(keep),
                0,
                0,
                False,
                time.perf_counter() - started,
                previous[0].name,
                False,
                tuple(skipped),
                {p: tuple(old_refused.get(p, ())) for p in skipped},
            )
        # Refused for what another file says (a reference, an id): looked at again.
        skipped = {p: b for p, b in skipped.items() if p not in old_held}
        refused = {p: list(old_refused.get(p, ())) for p in skipped}
        kept = set(keep)
        todo = [p for p in manifest if p not in kept and p not in skipped]
        if show:
            print(f"memkit index: {len(todo)} atom(s) to index", file=sys.stderr)
        atoms: list[Atom] = []
        for n, path in enumerate(todo, 1):
            # What a commit would refuse is not served: a half-written draft, or a teammate's
            # commit that skipped the hooks, must not reach every prompt (`admission`).
            parsed, codes = read_admitted(root, path, config, fast=True)
            if not codes and parsed.atom is not None:
                atoms.append(parsed.atom)
            else:
                skipped[path] = manifest[path]
                refused[path] = codes
            if show and n % 1000 == 0:
                print(f"  parsed {n}/{len(todo)}", file=sys.stderr)
        held = _refused_across([old_atoms[p] for p in keep], atoms, manifest)
        for path, codes in held.items():
            skipped[path] = manifest[path]
            refused[path] = codes
        atoms = [a for a in atoms if a.path not in held]
        kept -= set(held)
        removed = [p for p in old_atoms if p not in kept]

        gen = store.new_generation(root)
        try:
            if previous is not None:
                shutil.copytree(previous[0] / "tantivy", gen / "tantivy")
                index = tantivy.Index(build_schema(), str(gen / "tantivy"), reuse=True)
            else:
                (gen / "tantivy").mkdir()
                index = tantivy.Index(build_schema(), str(gen / "tantivy"), reuse=False)
            register(index)
            writer = index.writer(WRITER_HEAP, 1)
            for path in removed:
                writer.delete_documents_by_term("path", path)
            for atom in atoms:
                writer.add_document(_document(atom))
            writer.commit()
            writer.wait_merging_threads()

            encoder = load_encoder(model_path, cache_dir=root / ".memkit" / "models")
            new_vecs = encode_bulk(encoder, [atom_text(a) for a in atoms])
            # One vector per atom. Vectors per section were built once and never read: picking
            # a long atom's sections by weighed coverage was measured better (docs/benchmarks.md).
            entries, rows = [], []
            if previous is not None:
                old_vecs = np.load(previous[0] / "vectors.npy", mmap_mode="r")
                for i, entry in enumerate(previous[1]["atoms"]):
                    if entry["path"] in kept:
                        entries.append(entry)
                        rows.append(old_vecs[i])
            for i, atom in enumerate(atoms):
                entries.append(_entry(atom, manifest[atom.path]))
                rows.append(new_vecs[i])
            dim = encoder.dim
            np.save(gen / "vectors.npy", np.asarray(rows, dtype=np.float32).reshape(len(rows), dim))
            store.write_json_atomic(
                gen / "meta.json",
                {
                    "format": store.FORMAT,
                    "model": model_path,
                    "dim": dim,
                    "built": time.time(),
                    "atoms": entries,
                    "skipped": skipped,
                    "refused": refused,  # path -> the codes that refuse it
                    "held": sorted(held),  # refused for what another file says
                },
            )
            store.write_text_atomic(gen / DIGEST, digest(manifest))
            store.write_checksums(gen)  # last: a generation without it is not finished
            store.publish(root, gen)
        except ValueError as exc:
            store.discard(gen)
            raise _os_error(exc) or exc from None
        except BaseException:
            store.discard(gen)
            raise
    seconds = time.perf_counter() - started
    if show:
        print(
            f"memkit index: {len(entries)} atom(s) in {seconds:.2f} s ({gen.name})", file=sys.stderr
        )
    if skipped:  # the command says it (`memkit index`); hooks stay quiet
        log.info(
            "%d atom(s) left out of the index because they are invalid (run `memkit validate`)",
            len(skipped),
        )
    return BuildStats(
        len(entries),
        len(atoms),
        len(removed),
        previous is None,
        seconds,
        gen.name,
        True,
        tuple(sorted(skipped)),
        {p: tuple(refused[p]) for p in sorted(skipped)},
    )
