"""Searching the index: BM25, vectors, exact triggers, and their fusion.

The query path imports tantivy, numpy and tokenizers only (no gitpython, ruamel, mistune):
everything it needs about atoms is in the generation's atom table (`memkit.index.parts`).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tantivy

from memkit.errors import MemkitError
from memkit.index import parts, store
from memkit.index.analysis import cjk_grams, query_words, register
from memkit.index.fold import fold, read_table
from memkit.index.fusion import POOL, TRIGGER_BONUS, FusionParams, fuse
from memkit.index.paths import path_matches, with_paths
from memkit.index.schema import BOOSTS, TEXT_FIELDS, document_of
from memkit.parallel import no_cyclic_gc
from memkit.safety.text import has_cjk

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {
    "memkit.admission.decide",
    "memkit.config",
    "memkit.embedding.encoder",
    "memkit.embedding.usercache",
    "memkit.index.relevance",
    "numpy",
    "tempfile",
}

MODES = ("hybrid", "bm25", "vector")
STEM_CACHE = 4_096  # atoms whose stems a reader keeps (~0.5 MB per 1,000 short atoms)


class IndexUnavailable(RuntimeError):
    """No usable index: run `memkit index`."""


class IndexDamaged(IndexUnavailable):
    """The generation's files are damaged: rebuild it (`memkit index` does, from scratch)."""


Callback = Any  # Callable[[str], None]; typing's Callable would cost the hook path nothing
Terms = Any  # memkit.index.relevance.Terms, imported only when a query is weighed


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
    """One generation of the index, opened once and queried many times.

    A generation whose tantivy files or vectors are damaged still opens, degraded: `damage`
    says what is wrong, BM25 (or the vectors) answer nothing, bodies are read from the atom
    files, triggers still match; `on_damage` is told once, to have it rebuilt.
    """

    def __init__(self, root: Path, gen: Path, *, deep: bool = False) -> None:
        self.root = root
        self.gen = gen
        self.generation = gen.name
        self.seal = store.read_checksums(gen)
        self.build = self.seal["build"] if self.seal else ""
        self.problems = store.verify(gen, deep=deep or "changed", seal=self.seal)
        if store.CHECKSUMS in self.problems or any(map(parts.is_table, self.problems)):
            raise IndexDamaged(f"{gen}: {store.describe(self.problems)}")
        self.meta = store.read_meta(gen)
        self._folds: list[dict[int, int]] = []  # the generation's fold table, once read
        self.atoms: list[dict[str, Any]]
        # Hundreds of thousands of small objects and no cycle among them: with the cyclic
        # collector on, opening 100,000 atoms took 1.7 s instead of 0.9 s.
        with no_cyclic_gc():
            self.atoms, self.meta["picks"] = parts.read_table(gen, parts.parts_of(self.meta))
            self.row_of = {a["path"]: i for i, a in enumerate(self.atoms)}
            self._triggers = [
                (i, [self.fold(t.lower()) for t in a["triggers"] if t.strip()])
                for i, a in enumerate(self.atoms)
            ]
        self._open_rest()

    def _open_rest(self) -> None:
        """What both readers share after their atom table: tantivy, lazily the vectors."""
        self._superseded: frozenset[str] | None = None
        # What a client works out once per generation (recall's lookups): it lives and dies
        # with this reader, not in a module of the client.
        self.memo: dict[str, Any] = {}
        self._found: dict[int, Any] = {}  # the last BM25 query's documents, by row
        # Each weighed atom's passages and their stems, by row.
        self._passages: dict[int, list[tuple[str, frozenset[str]]]] = {}
        self.damage = ""
        self.on_damage: Callback = None
        self._vectors: Any = None
        self._encoder: Any = None
        self.index: Any = None
        self.searcher: Any = None
        broken = [rel for rel in self.problems if rel.startswith("tantivy/")]
        if broken:
            self._damaged(f"tantivy files damaged ({store.describe(self.problems)})")
            return

        try:
            try:
                self.index = tantivy.Index.open(str(self.gen / "tantivy"))
            except ValueError as exc:
                if "Lockfile" not in str(exc):
                    raise
                self.index = tantivy.Index.open(self._writable_copy())
            register(self.index)
            self.searcher = self.index.searcher()
        except (ValueError, OSError) as exc:  # tantivy's own check of its files
            self.index = self.searcher = None
            self._damaged(f"tantivy cannot open the index ({exc})")

    def fold(self, text: str) -> str:
        """`text` with traditional Chinese folded to simplified by the table this generation
        was built with (`memkit.index.fold`), as its CJK text was; read on first need."""
        if not has_cjk(text):
            return text
        if not self._folds:
            self._folds.append(read_table(self.gen))
        return fold(text, self._folds[0])

    def _writable_copy(self) -> str:
        """tantivy takes a lock file to open an index, which a read-only `.memkit/` (a
        read-only mount, a checkout of another user's) cannot hold: it reads a private copy
        instead (a few MB, removed when the reader goes)."""
        import tempfile

        self._copy = tempfile.TemporaryDirectory(prefix="memkit-index-")
        target = Path(self._copy.name) / "tantivy"
        shutil.copytree(self.gen / "tantivy", target)
        return str(target)

    def _damaged(self, problem: str) -> None:
        first = not self.damage
        self.damage = self.damage or problem
        if first and self.on_damage is not None:
            self.on_damage(problem)

    @property
    def skipped(self) -> list[str]:
        """Atom files this generation left out because validation refuses them, sorted."""
        return sorted(self.meta.get("skipped") or ())

    @property
    def refusals(self) -> dict[str, list[str]]:
        """Each skipped file and the codes that refuse it (a generation built by an older
        memkit knows no codes)."""
        codes = self.meta.get("refused") or {}
        return {path: list(codes.get(path, ())) for path in self.skipped}

    @property
    def superseded(self) -> frozenset[str]:
        """Ids of atoms that another live indexed atom supersedes, or that name a newer one
        themselves: whatever their own `status:` says, they are never served. A replacement
        waiting for review retires nothing until it is approved."""
        if self._superseded is None:
            self._superseded = frozenset(
                [
                    old
                    for a in self.atoms
                    if a["status"] == "active" and not a["pending"]
                    for old in a["supersedes"]
                ]
                + [a["id"] for a in self.atoms if a["superseded_by"]]
            )
        return self._superseded

    @property
    def vectors(self) -> Any:
        """The atom vectors, loaded on first use: a BM25-only caller never imports numpy.
        Damaged (or not one row per atom): none, and the generation is reported damaged.
        Read into memory, not mapped: a file truncated under a mapping kills the process
        that touches a page past its new end (SIGBUS), the warm engine included."""
        if self._vectors is None:
            import numpy as np

            try:
                broken = {rel: why for rel, why in self.problems.items() if parts.is_vectors(rel)}
                if broken:
                    raise ValueError(store.describe(broken))
                dim = int(self.meta.get("dim") or 1)
                vectors = parts.load_vectors(self.gen, self.meta["picks"], dim)
                if vectors.shape[0] != len(self.atoms):
                    raise ValueError(f"{vectors.shape[0]} vectors for {len(self.atoms)} atoms")
            except (OSError, ValueError, EOFError) as exc:
                self._damaged(f"vectors damaged ({exc})")
                vectors = np.zeros((0, int(self.meta.get("dim") or 1)), dtype=np.float32)
            self._vectors = vectors
        return self._vectors

    @property
    def encoder(self) -> Any:
        if self._encoder is None:
            from memkit.embedding import load_encoder
            from memkit.embedding.usercache import model_cache_dir

            self._encoder = load_encoder(self.meta["model"], cache_dir=model_cache_dir(self.root))
        return self._encoder

    def encode(self, text: str) -> Any:
        return self.encoder.encode([text])[0]

    # -- the three candidate lists -------------------------------------------------------
    def bm25(self, query: str, limit: int = POOL) -> list[tuple[int, float]]:
        if self.searcher is None:
            return []  # damaged: triggers and vectors still answer
        try:
            return self._bm25(query, limit)
        except (ValueError, OSError) as exc:  # damage tantivy found only now
            self._damaged(f"tantivy search failed ({exc})")
            return []

    def _bm25(self, query: str, limit: int) -> list[tuple[int, float]]:
        parts = []
        text = query_words(query)
        if text.strip():
            parsed, _errors = self.index.parse_query_lenient(
                text, list(TEXT_FIELDS), field_boosts=BOOSTS
            )
            parts.append((tantivy.Occur.Should, parsed))
        if has_cjk(query):
            schema = self.index.schema
            for gram in cjk_grams(self.fold(query)):
                term = tantivy.Query.term_query(schema, "cjk", gram)
                # Bigrams carry word order; weigh them above single characters.
                boost = 2.0 if len(gram) > 1 else 1.0
                parts.append((tantivy.Occur.Should, tantivy.Query.boost_query(term, boost)))
        if not parts:
            return []
        result = self.searcher.search(tantivy.Query.boolean_query(parts), limit)
        out = []
        self._found = {}
        for score, address in result.hits:
            doc = self.searcher.doc(address)
            row = self.row_of.get(doc.get_first("path"))
            if row is not None:
                out.append((row, float(score)))
                self._found[row] = doc  # its body is weighed next (`coverage`): no re-read
        return out

    def vector(self, query: str, limit: int = POOL) -> list[tuple[int, float]]:
        import numpy as np

        if not len(self.atoms) or not len(self.vectors):
            return []
        sims = np.asarray(self.vectors @ self.encode(query))
        top = np.argsort(-sims)[:limit]
        return [(int(i), float(sims[i])) for i in top]

    def query_terms(self, query: str) -> Terms:
        """The words of `query` that say what it is about, each weighed by how rare it is
        among the atoms (BM25's idf): English stems, and CJK bigrams (a lone CJK character
        when that is all a run has). Stop words carry no topic and are left out."""
        from memkit.index.relevance import query_terms

        return query_terms(self.fold(query), self.searcher)

    def coverage(self, terms: Terms, row: int, body: str | None = None) -> tuple[float, int]:
        """How much of the query an atom holds: the idf-weighted share of the query's terms
        found in its title and triggers and one passage of its body (0 to 1), and how many of
        them. Unlike a BM25 score it does not grow with the prompt's length or the atom's, so
        one absolute floor serves every prompt."""
        from memkit.index.relevance import cover, passages, stems_of

        entry = self.atoms[row]
        parts = self._passages.get(row)
        if parts is None:
            if body is None:
                found = self._found.get(row)
                body = str(found.get_first("body") or "") if found else self.body(entry["path"])
            head = f"{entry['title']}\n{' '.join(entry['triggers'])}\n"
            parts = [
                (text, stems_of(text)) for text in (self.fold(head + p) for p in passages(body))
            ]
            # Kept while the reader lives (the warm engine's: one per index generation).
            if len(self._passages) >= STEM_CACHE:
                self._passages.clear()
            self._passages[row] = parts
        return max(cover(terms, text, stems) for text, stems in parts)

    def path_matches(self, query: str) -> dict[int, str]:
        """Atoms whose `paths:` globs match a file path the query names, each with why
        (`memkit.index.paths`); only atoms with globs are looked at."""
        return path_matches(self.path_rows(), query)

    def path_rows(self) -> list[tuple[int, list[str]]]:
        """(row, globs) of the atoms that have `paths:`, once per reader."""
        rows: list[tuple[int, list[str]]] | None = getattr(self, "_path_rows", None)
        if rows is None:
            columns = getattr(self.atoms, "columns", None)  # the light reader's: sparse
            if columns is not None:
                rows = sorted(columns["paths"].items())
            else:
                rows = [(i, list(a["paths"])) for i, a in enumerate(self.atoms) if a["paths"]]
            self._path_rows = rows
        return rows

    def trigger_matches(self, query: str) -> list[tuple[int, str]]:
        """Atoms with a trigger in the query: a whole word, or a CJK substring (or a phrase).
        Rows in order, each with its first trigger found, as a scan of every row would give;
        only the rows a word or a character of the query can reach are looked at."""
        lowered = self.fold(query.lower())  # triggers are folded as the index is
        words = set(re.findall(r"[\w][\w.+#-]*", lowered))
        by_word, by_char = self.trigger_index()
        rows = {row for word in words for row in by_word.get(word, ())}
        rows.update(row for char in set(lowered) for row in by_char.get(char, ()))
        found = []
        for row in sorted(rows):
            for trig in self.row_triggers(row):
                if (trig in lowered) if has_cjk(trig) or " " in trig else (trig in words):
                    found.append((row, self._as_written(row, trig)))
                    break
        return found

    def _as_written(self, row: int, trig: str) -> str:
        """A matched trigger as its atom spells it (lower-cased), not as it was folded."""
        if not has_cjk(trig):
            return trig
        own = (t.lower() for t in self.atoms[row]["triggers"] if t.strip())
        return next((t for t in own if self.fold(t) == trig), trig)

    def row_triggers(self, row: int) -> list[str]:
        """The atom's triggers, lower-cased and folded, blank ones left out."""
        return [self.fold(t.lower()) for t in self.atoms[row]["triggers"] if t.strip()]

    def trigger_index(self) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
        """Rows by trigger word, and rows of substring triggers (CJK, phrases) by their
        first character: built once per reader (100,000 atoms: a scan per prompt ~50 ms)."""
        index = getattr(self, "_trigger_rows", None)
        if index is None:
            index = self._trigger_rows = trigger_index(self._triggers)
        return index

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
        if mode == "hybrid":  # a file the query names finds the atoms about it (issue 43)
            ranked = with_paths(ranked, self.path_matches(query), TRIGGER_BONUS)
        hits = []
        for row, score, why in ranked:
            entry = self.atoms[row]
            if not include_inactive and (
                entry["status"] != "active" or entry["pending"] or entry["id"] in self.superseded
            ):
                continue  # a newer atom's `supersedes` retires it, whatever its own status says
            hits.append(Hit(entry["id"], entry["path"], entry["title"], score, why, entry))
            if len(hits) >= limit:
                break
        return hits

    def body(self, path: str) -> str:
        if self.searcher is not None:
            try:
                doc = document_of(self.searcher, self.index.schema, path)
                return str(doc.get_first("body") or "") if doc is not None else ""
            except (ValueError, OSError) as exc:
                self._damaged(f"tantivy cannot read a stored body ({exc})")
        return body_from_file(self.root, path)


def trigger_index(
    rows: Sequence[tuple[int, list[str]]],
) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """(rows by trigger word, rows of CJK and phrase triggers by their first character)
    of (row, lower-cased triggers) pairs."""
    by_word: dict[str, list[int]] = {}
    by_char: dict[str, list[int]] = {}
    for row, triggers in rows:
        for trig in triggers:
            substring = has_cjk(trig) or " " in trig
            listed = (by_char if substring else by_word).setdefault(
                trig[0] if substring else trig, []
            )
            if not listed or listed[-1] != row:
                listed.append(row)
    return by_word, by_char


def body_from_file(root: Path, relpath: str) -> str:
    """An atom's body read from its file (after the frontmatter): when the index cannot
    give it, what is on disk now is the truth anyway, once validation admits it (the file
    may have changed since it was indexed: a secret pasted into it is not served)."""
    from memkit.admission.decide import read_admitted  # damaged index only
    from memkit.config import load_config

    try:
        parsed, codes = read_admitted(root, relpath, load_config(root), fast=True)
    except MemkitError:  # memkit.yaml unreadable now: nothing is admitted
        return ""
    return "" if codes or parsed.atom is None else parsed.atom.body


def open_index(root: Path, *, deep: bool = False) -> IndexReader:
    """The current generation; `deep` checks every file's checksum, not only its size."""
    gen = store.current_generation(root)
    if gen is None:
        raise IndexUnavailable(f"no index under {store.index_dir(root)}; run `memkit index`")
    try:
        return IndexReader(root, gen, deep=deep)
    except store.OutdatedIndex as exc:
        raise IndexUnavailable(f"{exc}; `memkit index` rebuilds it") from exc
    except IndexDamaged as exc:
        raise IndexDamaged(f"index {exc} is damaged; `memkit index` rebuilds it") from exc
    except (OSError, ValueError, KeyError) as exc:
        raise IndexDamaged(f"index {gen} cannot be opened ({exc}); run `memkit index`") from exc


def batch(reader: IndexReader, queries: Sequence[str], **kwargs: Any) -> list[list[Hit]]:
    return [reader.search(q, **kwargs) for q in queries]
