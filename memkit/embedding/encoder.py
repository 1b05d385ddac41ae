"""Encoding text the way `model2vec.StaticModel.encode` does, with `tokenizers` and numpy only.

model2vec's recipe: cut each text to max_length x the median token length in characters,
tokenise without special tokens (truncated to max_length tokens), drop the unknown token,
average the token rows, L2-normalise.

Building the full 64,000-piece Unigram tokenizer costs ~0.1 s, most of a hook's budget, so a
small call (a query, a few atoms) tokenises with a Unigram model made of only the pieces that
occur in its own texts. The Viterbi search can only choose pieces that occur in the text, and
the unknown-token penalty depends on the vocabulary's minimum score, which a sentinel piece
keeps; so the pieces chosen are the same. A large call loads the full tokenizer once and keeps
it. Tests check both paths give the same token ids.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Sequence
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

from memkit.embedding.cache import Prepared, prepare, source_key
from memkit.embedding.locate import Layout, locate

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.embedding.bulk", "memkit.embedding.parts", "tokenizers"}


log = logging.getLogger(__name__)

# Above this many characters in one call the full tokenizer (built once, ~0.1 s) is cheaper
# than finding candidate pieces in Python (~3 us per character).
SMALL_CALL_CHARS = 4096
# A long-lived process switches to the full tokenizer once small calls have cost about as
# much as building it (a small call takes ~1 ms, a full-tokenizer call ~0.05 ms).
FULL_TOKENIZER_SECONDS = 0.1
# Never a piece of real text: a word containing it sends the call to the full tokenizer.
SENTINEL = "\x00\x01memkit-min-score\x01\x00"


class Encoder:
    """Text to float32, L2-normalised vectors; one row per text, zeros for a text with no
    known token. `matrix` may be memory-mapped: rows are read only for the tokens used."""

    def __init__(self, prepared: Prepared) -> None:
        meta = prepared.meta
        self.path: Path = prepared.layout.folder
        self.name: str = self.path.name
        self.matrix: np.ndarray = prepared.matrix
        self.max_length: int | None = meta["max_length"]
        self.unk_id: int | None = meta["unk_id"]
        self._prepared = prepared
        self._cut = (
            None if self.max_length is None else self.max_length * meta["median_token_length"]
        )
        self._full: Any = None
        self._parts: Any = None  # bulk.PartTokenizer, built on the first bulk call
        self._parts_home: tuple[Path, str] | None = None  # (cache folder, model hash)
        self._parts_saved = 0  # how many of its parts that file holds
        self._small_seconds = 0.0
        self._scaffold: Any = None  # normaliser and pre-tokenizer of the model, no vocabulary
        if prepared.tokenizer is not None:
            self._full = self._configure(prepared.tokenizer)

    @property
    def dim(self) -> int:
        return int(self.matrix.shape[1])

    def __repr__(self) -> str:
        return f"Encoder({self.name!r}, dim={self.dim}, path={str(self.path)!r})"

    # -- tokenising ---------------------------------------------------------------------------
    def _configure(self, tokenizer: Any) -> Any:
        tokenizer.no_padding()
        if self.max_length is None:
            tokenizer.no_truncation()
        else:
            tokenizer.enable_truncation(self.max_length)
        return tokenizer

    def _full_tokenizer(self) -> Any:
        if self._full is None:
            from tokenizers import Tokenizer

            self._full = self._configure(Tokenizer.from_file(str(self._prepared.layout.tokenizer)))
        return self._full

    def _small_call_ids(self, texts: Sequence[str]) -> list[list[int]] | None:
        """Token ids from a Unigram model of only the pieces these texts contain; None when
        the texts hold something only the full tokenizer handles exactly (added tokens)."""
        from tokenizers import Tokenizer

        prepared, meta = self._prepared, self._prepared.meta
        lookup, ids, scores = prepared.lookup, prepared.ids, prepared.scores
        if lookup is None or ids is None or scores is None:
            return None
        skeleton: dict[str, Any] = meta["skeleton"]
        if self._scaffold is None:
            bare = {**skeleton, "added_tokens": []}
            bare["model"] = {**skeleton["model"], "unk_id": None, "vocab": [[SENTINEL, 0.0]]}
            self._scaffold = Tokenizer.from_str(json.dumps(bare))
        normalizer, pre = self._scaffold.normalizer, self._scaffold.pre_tokenizer
        added, longest = meta["added_tokens"], meta["max_piece_chars"]
        candidates: set[str] = set()
        for text in texts:
            normalized = normalizer.normalize_str(text) if normalizer is not None else text
            if any(token in text or token in normalized for token in added):
                return None
            words = [w for w, _ in pre.pre_tokenize_str(normalized)] if pre else [normalized]
            for word in words:
                if SENTINEL in word:
                    return None
                n = len(word)
                for i in range(n):
                    candidates.update(word[i:j] for j in range(i + 1, min(n, i + longest) + 1))
        vocab: dict[int, tuple[str, float]] = {i: (p, s) for i, p, s in meta["always"]}
        if candidates:
            wanted = np.asarray(sorted(candidates))
            at = np.minimum(np.searchsorted(lookup, wanted), len(lookup) - 1)
            hit = np.flatnonzero(lookup[at] == wanted)
            for piece, token in zip(wanted[hit].tolist(), ids[at[hit]].tolist(), strict=True):
                vocab[token] = (piece, float(scores[token]))
        keep = sorted(vocab)
        local = {token: i for i, token in enumerate(keep)}
        spec = {
            **skeleton,
            "model": {
                **skeleton["model"],
                # The sentinel keeps the full vocabulary's minimum score: the Unigram model
                # derives its unknown-token penalty from it.
                "vocab": [list(vocab[t]) for t in keep] + [[SENTINEL, meta["min_score"]]],
                "unk_id": local[meta["unk_id"]],
            },
            "added_tokens": [{**t, "id": local[int(t["id"])]} for t in skeleton["added_tokens"]],
        }
        tokenizer = self._configure(Tokenizer.from_str(json.dumps(spec)))
        encodings = tokenizer.encode_batch_fast(list(texts), add_special_tokens=False)
        return [[keep[i] for i in e.ids] for e in encodings]

    @property
    def cut_chars(self) -> int | None:
        """Characters of a text model2vec reads (it cuts before tokenising)."""
        return self._cut

    def _part_tokenizer(self) -> Any:
        if self._parts is None:
            from memkit.embedding.bulk import part_tokenizer

            found = part_tokenizer(str(self._prepared.layout.tokenizer), self.max_length)
            if found is not None and self._parts_file is not None:
                from memkit.embedding import parts

                parts.load(self._parts_file, found)
                self._parts_saved = found.learned
            self._parts = found if found is not None else False
        return self._parts or None

    @property
    def _parts_file(self) -> Path | None:
        """Where the bulk tokeniser's table is kept (`memkit.embedding.parts`); named only
        when a bulk call needs it, off the query path."""
        if self._parts_home is None:
            return None
        from memkit.embedding.parts import table_file

        return table_file(*self._parts_home)

    def keep_parts(self) -> None:
        """Write the bulk tokeniser's table back to the model cache when it learnt enough
        since it was read (`memkit.embedding.parts`)."""
        from memkit.embedding import parts
        from memkit.embedding.bulk import MAX_CACHED

        table = self._parts or None
        path = self._parts_file
        if table is None or path is None:
            return
        if table.learned - self._parts_saved < parts.SAVE_FROM or len(table.index) > MAX_CACHED:
            return
        parts.save(path, table)
        self._parts_saved = table.learned

    def bulk_parts(
        self, texts: Sequence[str], clean: list[bool] | None = None
    ) -> list[list[int]] | None:
        """Each text as a list of part numbers (bulk.py; texts not cut to `cut_chars`), for
        `pool`; None when the model's tokenizer is not of the shape bulk.py handles."""
        parts = self._part_tokenizer()
        return None if parts is None else parts.parts(texts, clean)

    def pool(self, numbers: Sequence[Sequence[int]]) -> np.ndarray:
        """The L2-normalised mean vector of each text given as part numbers (`bulk_parts`),
        the same rows as `encode` gives for the texts."""
        ids, counts = self._part_tokenizer().tokens(numbers)
        return self._means(ids, counts)

    def _means(self, ids: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """Mean rows of texts whose token ids lie end to end (`counts` each), unknown token
        dropped, L2-normalised (callers take dot products as cosines; model2vec's
        `normalize` only scales rows). One small gather per text: a single gather of a
        batch allocates hundreds of megabytes, and np.add.reduceat over the rows is ~50x
        slower here; from one array, as converting a list per text costs as much again."""
        from memkit.embedding.bulk import per_text

        if self.unk_id is not None:
            known = ids != self.unk_id
            counts = per_text(known.astype(np.int64), counts)
            ids = ids[known]
        out = np.zeros((len(counts), self.dim), dtype=np.float32)
        matrix = np.asarray(self.matrix)  # a plain view: memmap's indexing is slower
        begin = 0
        for k, end in enumerate(np.cumsum(counts).tolist()):
            if end > begin:
                out[k] = matrix[ids[begin:end]].mean(axis=0)
            begin = end
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out

    def bulk_token_ids(self, texts: Sequence[str]) -> list[list[int]] | None:
        """What `token_ids` gives, through bulk.py (for tests and comparisons)."""
        cut = self._cut
        numbers = self.bulk_parts([t[:cut] if cut is not None else t for t in texts])
        if numbers is None:
            return None
        ids, counts = self._part_tokenizer().tokens(numbers)
        rows = np.split(ids, np.cumsum(counts)[:-1]) if len(counts) else []
        unk = self.unk_id
        return [[i for i in row.tolist() if i != unk] for row in rows]

    def token_ids(self, texts: Sequence[str], *, full: bool | None = None) -> list[list[int]]:
        """model2vec's token ids for each text (unknown token dropped). `full` forces one path
        (True: the full tokenizer; False: the small-call path); by default it is chosen by size."""
        if self._cut is not None:
            texts = [text[: self._cut] for text in texts]
        ids: list[list[int]] | None = None
        if full is None:
            full = (
                self._full is not None
                or self._small_seconds > FULL_TOKENIZER_SECONDS
                or sum(map(len, texts)) > SMALL_CALL_CHARS
            )
        if ids is None and not full and self._prepared.lookup is not None:
            started = time.perf_counter()
            ids = self._small_call_ids(texts)
            self._small_seconds += time.perf_counter() - started
        if ids is None:
            encodings = self._full_tokenizer().encode_batch_fast(
                list(texts), add_special_tokens=False
            )
            ids = [e.ids for e in encodings]
        unk = self.unk_id
        if unk is None:
            return ids
        return [[i for i in row if i != unk] if unk in row else row for row in ids]

    # -- encoding -----------------------------------------------------------------------------
    def encode(
        self, texts: Sequence[str], *, full: bool | None = None, bulk: bool = False
    ) -> np.ndarray:
        """One float32 L2-normalised row per text (shape (len(texts), dim)); a text with no
        known token (empty, blank, or only unknown characters) gives a zero row. `bulk`
        (indexing): each distinct word tokenised once (bulk.py), the same rows."""
        if isinstance(texts, str):
            raise TypeError("encode takes a sequence of texts, not one string")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if bulk:
            cut = self._cut
            numbers = self.bulk_parts([t[:cut] if cut is not None else t for t in texts])
            if numbers is not None:
                return self.pool(numbers)
        return self.mean_rows(self.token_ids(texts, full=full))

    def mean_rows(self, rows: Sequence[Sequence[int]]) -> np.ndarray:
        """The normalised mean vector of each list of token ids (cut at max_length, unknown
        token dropped): rows of what `encode` gives."""
        limit = self.max_length
        cut = [row[:limit] for row in rows] if limit is not None else rows
        counts = np.fromiter(map(len, cut), dtype=np.int64, count=len(cut))
        ids = np.fromiter(chain.from_iterable(cut), dtype=np.intp, count=int(counts.sum()))
        return self._means(ids, counts)


_LOADED: dict[tuple[str, str], Encoder] = {}


def load_encoder(
    model: str | os.PathLike[str] | None = None,
    *,
    cache_dir: Path | None = None,
    base: Path | None = None,
) -> Encoder:
    """The encoder of a model reference: None or "default" (the model shipped with memkit), a
    model2vec model folder (relative paths against `base`), or `hf:<owner>/<name>`.

    `cache_dir` (typically `<repo>/.memkit/models`) keeps the converted matrix so that later
    loads take milliseconds; without it every load converts the model. Raises ModelError.
    """
    layout: Layout = locate(model, base)
    memo = (source_key(layout), str(cache_dir))
    encoder = _LOADED.get(memo)
    if encoder is None:
        prepared = prepare(layout, cache_dir)
        encoder = Encoder(prepared)
        content = prepared.meta.get("hash")
        if cache_dir is not None and isinstance(content, str):
            encoder._parts_home = (cache_dir, content)
        _LOADED[memo] = encoder
        log.debug("loaded embedding model %s (dim %d)", layout.folder, encoder.dim)
    return encoder


def encode_bulk(encoder: Encoder, texts: Sequence[str], batch_size: int = 4096) -> np.ndarray:
    """Encode many texts (indexing): the same vectors as `encode`, with the full tokenizer,
    in batches so that memory stays bounded.

    model2vec itself is not used even when installed: on 20,000 atoms both encode 15,000-20,000
    atoms/s here (benchmarks/model_bench.py), and importing and loading model2vec costs ~0.9 s.
    """
    if not texts:
        return np.zeros((0, encoder.dim), dtype=np.float32)
    parts = [
        encoder.encode(texts[i : i + batch_size], full=True, bulk=True)
        for i in range(0, len(texts), batch_size)
    ]
    encoder.keep_parts()
    return np.concatenate(parts)
