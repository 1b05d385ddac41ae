"""What a build needs of each atom to index: its meta entry, its tantivy fields, its vectors.

Parsing and embedding are pure Python work of about equal cost; with many atoms to index
(a fresh clone) half of them go to a forked child process, so that both cores work. The
child sends back plain data (entries, fields, float32 rows); an Atom never crosses.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memkit.atom.read import read_atom
from memkit.index.embed import embed
from memkit.index.schema import with_cjk
from memkit.index.verdicts import Verdict, Verdicts, judge
from memkit.parallel import in_halves

if TYPE_CHECKING:
    import numpy as np

    from memkit.atom import Atom
    from memkit.config import Config
    from memkit.embedding import Encoder

log = logging.getLogger(__name__)
PARALLEL_ATOMS = 2000  # below this a second process costs more than it saves
Progress = Callable[[int], None]  # told how many more atoms are done


@dataclass
class Prepared:
    entries: list[dict[str, Any]] = field(default_factory=list)
    fields: list[dict[str, str]] = field(default_factory=list)  # tantivy document fields
    vectors: list[np.ndarray] = field(default_factory=list)  # blocks of atom rows
    skipped: list[str] = field(default_factory=list)  # paths validation refuses
    refused: dict[str, list[str]] = field(default_factory=dict)  # path -> the codes
    verdicts: dict[str, Verdict] = field(default_factory=dict)  # files judged now


def entry(atom: Atom, blob: str) -> dict[str, Any]:
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


def document_fields(atom: Atom) -> dict[str, str]:
    return with_cjk(
        {
            "id": atom.id,
            "path": atom.path,
            "title": atom.title,
            "triggers": " ".join(atom.triggers),
            "tags": " ".join(atom.tags),
            "body": atom.body,
            "scope": atom.scope,
            "type": atom.type,
            "status": atom.status,
            "confidence": atom.confidence,
        }
    )


def _prepare(
    root: Path,
    paths: Sequence[str],
    *,
    blobs: dict[str, str],
    config: Config,
    encoder: Callable[[], Encoder],
    progress: Progress | None,
    kept: Verdicts | None,
    early: Callable[[Prepared], None] | None = None,
) -> Prepared:

    out = Prepared()
    atoms: list[Atom] = []
    for n, path in enumerate(paths, 1):
        # What a commit would refuse is not served: a half-written draft, or a teammate's
        # commit that skipped the hooks, must not reach every prompt (`admission`). A blob
        # judged before (by `memkit validate`, the commit's hooks, an earlier build) is not
        # scanned again; one it refused is not even read.
        verdict = kept.get(path, blobs[path]) if kept is not None else None
        if verdict is None:
            parsed, verdict = judge(root, path, config)
            out.verdicts[path] = verdict
            atom = parsed.atom
        elif not verdict.codes:
            atom = read_atom(root, path, config, fast=True).atom
        else:
            atom = None
        if not verdict.codes and atom is not None:
            atoms.append(atom)
        else:
            out.skipped.append(path)
            out.refused[path] = verdict.codes
        if progress is not None and n % 100 == 0:
            progress(100)
    if progress is not None:
        progress(len(paths) % 100)
    out.entries = [entry(a, blobs[a.path]) for a in atoms]
    out.fields = [document_fields(a) for a in atoms]
    if early is not None:  # tantivy indexes these in its own threads while we embed
        early(out)
    out.vectors = [embed(encoder(), atoms)]
    return out


def prepare(
    root: Path,
    paths: Sequence[str],
    blobs: dict[str, str],
    config: Config,
    encoder: Callable[[], Encoder],
    *,
    progress: Progress | None = None,
    on_first: Callable[[Prepared], None] | None = None,
    kept: Verdicts | None = None,
) -> Prepared:
    """Entries, tantivy fields and vectors of the valid atoms among `paths`, in order; the
    second half in a forked child when there are PARALLEL_ATOMS or more (memkit.parallel).
    `kept`: the verdicts of files judged before; `Prepared.verdicts` holds the new ones.
    `on_first` gets this process's share as soon as its fields are ready, before its vectors
    (to hand them to tantivy, which indexes in its own threads while the vectors are made
    and the child finishes), and again when it is done."""
    total = len(paths)

    def work(part: Sequence[str], in_child: bool) -> Prepared:
        told = None
        if progress is not None and not in_child:  # the child reads as fast: count ours twice

            def told(count: int) -> None:
                progress(count * total // max(1, len(part)))

        return _prepare(
            root,
            part,
            blobs=blobs,
            config=config,
            encoder=encoder,
            progress=told,
            kept=kept,
            early=None if in_child else on_first,
        )

    shares = in_halves(paths, work, minimum=PARALLEL_ATOMS, on_first=on_first)
    if progress is not None:
        progress(total)  # the bar stops at its total
    if len(shares) == 1:
        return shares[0]
    mine, other = shares
    return Prepared(
        mine.entries + other.entries,
        mine.fields + other.fields,
        mine.vectors + other.vectors,
        mine.skipped + other.skipped,
        {**mine.refused, **other.refused},
        {**mine.verdicts, **other.verdicts},
    )
