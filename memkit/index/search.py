"""Searching the index: BM25, vectors, exact triggers, and their fusion.

The query path imports tantivy, numpy and tokenizers only (no gitpython, ruamel, mistune):
everything it needs about atoms is in the generation's meta.json.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memkit.index import store
from memkit.index.analysis import cjk_grams, has_cjk, query_words, register
from memkit.index.fusion import FusionParams, fuse
from memkit.index.schema import BOOSTS, TEXT_FIELDS

MODES = ("hybrid", "bm25", "vector")
POOL = 50  # candidates taken from each list before fusion


class IndexUnavailable(RuntimeError):
    """No usable index: run `memkit index`."""


@dataclass(frozen=True)
class Hit:
    id: str
    path: str
    title: str
    score: float
    why: str
    entry: dict[str, Any] = field(repr=False, compare=False, default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "score": round(self.score, 6),
            "title": self.title,
            "path": self.path,
            "why": self.why,
        }


class IndexReader:
    """One generation of the index, opened once and queried many times."""

    def __init__(self, root: Path, gen: Path) -> None:
        import tantivy  # noqa: PLC0415

        self.root = root
        self.gen = gen
        self.generation = gen.name
        self.meta = store.read_meta(gen)
        self.atoms: list[dict[str, Any]] = self.meta["atoms"]
        self.row_of = {a["path"]: i for i, a in enumerate(self.atoms)}
        self._vectors: Any = None
        self.index = tantivy.Index.open(str(gen / "tantivy"))
        register(self.index)
        self.searcher = self.index.searcher()
        self._encoder: Any = None
        self._triggers = [
            (i, [t.lower() for t in a["triggers"] if t.strip()]) for i, a in enumerate(self.atoms)
        ]

    @property
    def skipped(self) -> list[str]:
        """Atom files this generation left out because validation refuses them, sorted."""
        return sorted(self.meta.get("skipped") or ())

    @property
    def vectors(self) -> Any:
        """The atom vectors, loaded on first use: a BM25-only caller never imports numpy."""
        if self._vectors is None:
            import numpy as np  # noqa: PLC0415

            self._vectors = np.load(self.gen / "vectors.npy", mmap_mode="r")
        return self._vectors

    @property
    def sections(self) -> Any:
        import numpy as np  # noqa: PLC0415

        return np.load(self.gen / "sections.npy", mmap_mode="r")

    @property
    def encoder(self) -> Any:
        if self._encoder is None:
            from memkit.embedding import load_encoder  # noqa: PLC0415

            self._encoder = load_encoder(
                self.meta["model"], cache_dir=self.root / ".memkit" / "models"
            )
        return self._encoder

    def encode(self, text: str) -> Any:
        return self.encoder.encode([text])[0]

    # -- the three candidate lists -------------------------------------------------------
    def bm25(self, query: str, limit: int = POOL) -> list[tuple[int, float]]:
        import tantivy  # noqa: PLC0415

        parts = []
        text = query_words(query)
        if text.strip():
            parsed, _errors = self.index.parse_query_lenient(
                text, list(TEXT_FIELDS), field_boosts=BOOSTS
            )
            parts.append((tantivy.Occur.Should, parsed))
        if has_cjk(query):
            schema = self.index.schema
            for gram in cjk_grams(query):
                term = tantivy.Query.term_query(schema, "cjk", gram)
                # Bigrams carry word order; weigh them above single characters.
                boost = 2.0 if len(gram) > 1 else 1.0
                parts.append((tantivy.Occur.Should, tantivy.Query.boost_query(term, boost)))
        if not parts:
            return []
        result = self.searcher.search(tantivy.Query.boolean_query(parts), limit)
        out = []
        for score, address in result.hits:
            doc = self.searcher.doc(address)
            row = self.row_of.get(doc.get_first("path"))
            if row is not None:
                out.append((row, float(score)))
        return out

    def vector(self, query: str, limit: int = POOL) -> list[tuple[int, float]]:
        import numpy as np  # noqa: PLC0415

        if not len(self.atoms):
            return []
        sims = np.asarray(self.vectors @ self.encode(query))
        top = np.argsort(-sims)[:limit]
        return [(int(i), float(sims[i])) for i in top]

    def trigger_matches(self, query: str) -> list[tuple[int, str]]:
        """Atoms with a trigger in the query: a whole word, or a CJK substring."""
        lowered = query.lower()
        words = set(re.findall(r"[\w][\w.+#-]*", lowered))
        found = []
        for row, triggers in self._triggers:
            for trig in triggers:
                if (trig in lowered) if has_cjk(trig) or " " in trig else (trig in words):
                    found.append((row, trig))
                    break
        return found

    # -- the public search ---------------------------------------------------------------
    def search(
        self,
        query: str,
        limit: int = 10,
        mode: str = "hybrid",
        include_inactive: bool = False,
        params: FusionParams | None = None,
    ) -> list[Hit]:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        bm25 = self.bm25(query) if mode in ("hybrid", "bm25") else []
        vec = self.vector(query) if mode in ("hybrid", "vector") else []
        triggers = self.trigger_matches(query) if mode == "hybrid" else []
        ranked = fuse(bm25, vec, triggers, mode=mode, params=params or FusionParams())
        hits = []
        for row, score, why in ranked:
            entry = self.atoms[row]
            if not include_inactive and (entry["status"] != "active" or entry["pending"]):
                continue
            hits.append(Hit(entry["id"], entry["path"], entry["title"], score, why, entry))
            if len(hits) >= limit:
                break
        return hits

    def body(self, path: str) -> str:
        import tantivy  # noqa: PLC0415

        query = tantivy.Query.term_query(self.index.schema, "path", path)
        result = self.searcher.search(query, 1)
        if not result.hits:
            return ""
        value = self.searcher.doc(result.hits[0][1]).get_first("body")
        return str(value or "")


def open_index(root: Path) -> IndexReader:
    gen = store.current_generation(root)
    if gen is None:
        raise IndexUnavailable(f"no index under {store.index_dir(root)}; run `memkit index`")
    try:
        return IndexReader(root, gen)
    except (OSError, ValueError, KeyError) as exc:
        raise IndexUnavailable(
            f"index {gen} cannot be opened ({exc}); run `memkit index --full`"
        ) from exc


def batch(reader: IndexReader, queries: Sequence[str], **kwargs: Any) -> list[list[Hit]]:
    return [reader.search(q, **kwargs) for q in queries]
