"""Which live atoms each incoming atom is compared with: a bounded set from three sources.

- `vector`: the nearest atoms by embedding cosine, at or above `audit.candidate_similarity`
  (default 0.60, the seeds' figure), at most `audit.neighbours`;
- `bm25`: the best BM25 matches of the incoming atom's own text, at most `audit.bm25`: a
  same-frame sentence with one name swapped shares nearly every word, while a static vector
  can rank it below paraphrases;
- `trigger`: atoms sharing a trigger, the closest `audit.trigger_limit` of them by cosine (a
  trigger shared by thousands of atoms must not make the audit quadratic).

Every similarity comes from one matrix product against the index's vectors, in blocks, so the
cost grows with the number of incoming atoms times the index, never with pairs encoded one by
one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memkit.atom.text import atom_text
from memkit.gate.duplicates import DEFAULT_DUPLICATE
from memkit.vectors import is_live

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"numpy"}


SOURCES = ("vector", "bm25", "trigger")
_BLOCK = 256
_BM25_QUERY_WORDS = 48


@dataclass(frozen=True)
class AuditSettings:
    candidate_similarity: float = 0.60
    duplicate: float = DEFAULT_DUPLICATE
    neighbours: int = 6
    bm25: int = 4
    trigger_limit: int = 4
    sources: tuple[str, ...] = SOURCES

    @classmethod
    def from_config(cls, audit: Mapping[str, Any], gate: Mapping[str, Any]) -> AuditSettings:
        def num(section: Mapping[str, Any], key: str, default: float) -> float:
            value = section.get(key, default)
            return float(value) if isinstance(value, (int, float)) else default

        return cls(
            num(audit, "candidate_similarity", cls.candidate_similarity),
            num(gate, "duplicate", DEFAULT_DUPLICATE),
            int(num(audit, "neighbours", cls.neighbours)),
            int(num(audit, "bm25", cls.bm25)),
            int(num(audit, "trigger_limit", cls.trigger_limit)),
        )


@dataclass
class Candidate:
    row: int  # in the index
    similarity: float
    sources: set[str] = field(default_factory=set)


def find(
    reader: Any, incoming: Sequence[Any], settings: AuditSettings
) -> list[dict[str, Candidate]]:
    """For each incoming atom (in order), its candidates by path, excluding itself."""
    import numpy as np

    out: list[dict[str, Candidate]] = [{} for _ in incoming]
    if not incoming or not len(reader.atoms):
        return out
    matrix = np.asarray(reader.vectors, dtype=np.float32)
    live = np.array([is_live(e) for e in reader.atoms])
    rows_of: dict[str, list[int]] = {}
    if "trigger" in settings.sources:
        for row, entry in enumerate(reader.atoms):
            if live[row]:
                for trig in {t.lower() for t in entry["triggers"]}:
                    rows_of.setdefault(trig, []).append(row)
    by_trigger = {t: np.asarray(rows, dtype=np.int64) for t, rows in rows_of.items()}
    for start in range(0, len(incoming), _BLOCK):
        block = incoming[start : start + _BLOCK]
        vectors = _vectors(reader, block)
        sims = np.where(live, vectors @ matrix.T, -1.0)
        for k, atom in enumerate(block):
            found = out[start + k]
            row_sims = sims[k]
            proposed: list[tuple[int, str]] = []
            if "vector" in settings.sources:
                for row in _top(row_sims, settings.neighbours + 1):
                    if row_sims[row] >= settings.candidate_similarity:
                        proposed.append((row, "vector"))
            if "trigger" in settings.sources and atom.triggers:
                arrays = [by_trigger[t.lower()] for t in atom.triggers if t.lower() in by_trigger]
                if arrays:
                    ranked = np.unique(np.concatenate(arrays)) if len(arrays) > 1 else arrays[0]
                    best = ranked[_top(row_sims[ranked], settings.trigger_limit + 1)]
                    for row in best:
                        proposed.append((int(row), "trigger"))
            if "bm25" in settings.sources and settings.bm25 > 0:
                query = " ".join(atom_text(atom).split()[:_BM25_QUERY_WORDS])
                for row, _score in reader.bm25(query, limit=settings.bm25 + 1):
                    if live[row]:
                        proposed.append((row, "bm25"))
            taken = dict.fromkeys(settings.sources, 0)
            limits = {
                "vector": settings.neighbours,
                "bm25": settings.bm25,
                "trigger": settings.trigger_limit,
            }
            for row, source in proposed:
                entry = reader.atoms[row]
                if entry["path"] == atom.path or entry["id"] == atom.id:
                    continue
                if taken[source] >= limits[source]:
                    continue
                taken[source] += 1
                cand = found.setdefault(entry["path"], Candidate(row, float(row_sims[row])))
                cand.sources.add(source)
    return out


def _vectors(reader: Any, atoms: Sequence[Any]) -> Any:
    """Index rows for atoms the index holds as they are; encoded text for the others."""
    import numpy as np

    rows = [reader.row_of.get(a.path) for a in atoms]
    out = np.zeros((len(atoms), reader.vectors.shape[1]), dtype=np.float32)
    missing = [i for i, r in enumerate(rows) if r is None or not _same(reader.atoms[r], atoms[i])]
    absent = set(missing)
    for i, row in enumerate(rows):
        if i not in absent and row is not None:
            out[i] = reader.vectors[row]
    if missing:
        out[missing] = reader.encoder.encode([atom_text(atoms[i]) for i in missing])
    return out


def _same(entry: dict[str, Any], atom: Any) -> bool:
    return bool(entry["title"] == atom.title and entry["chars"] == len(atom.body))


def _top(values: Any, k: int) -> list[int]:
    import numpy as np

    if k <= 0 or not len(values):
        return []
    k = min(k, len(values))
    top = np.argpartition(-values, k - 1)[:k]
    return [int(i) for i in top[np.argsort(-values[top], kind="stable")]]
