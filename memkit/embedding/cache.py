"""A model folder converted once into files that load in a few milliseconds.

Reading the int8 safetensors and building the 64,000-piece tokenizer costs about 0.15 s, too
much for a hook. The first load writes, under the caller's cache folder (the per-user one,
`memkit.embedding.usercache`, shared by every clone) and named after a hash of the model
files' bytes (so a changed model is converted again, and the same model anywhere is not):

    <stem>.f32.npy     float32 matrix, one row per token id (int8 and vocabulary
                       quantisation folded in)
    <stem>.lookup.npy  a Unigram vocabulary's pieces, sorted, as a fixed-width string array,
    <stem>.ids.npy     with their token ids, and <stem>.scores.npy the scores by id: what the
                       query path needs to tokenise without building the full tokenizer
    <stem>.json        everything else; written last, so its presence means the rest is whole
    <name>-<crc>.ref   the hash of the model files as they are at one path, size and mtime:
                       a load reads it instead of hashing the model again

All are opened with mmap: nothing is parsed at load. Every file is written to a temporary name
and renamed, so a reader never sees half a file; an entry that does not load (a file cut
short, metadata that does not match its matrix) is converted and written again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import numpy as np

from memkit.embedding.locate import Layout, ModelError
from memkit.files import write_atomic

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"safetensors.numpy", "tokenizers"}


log = logging.getLogger(__name__)

FORMAT = 2  # bump when what is cached, or how it is derived, changes
DEFAULT_MAX_LENGTH = 512  # model2vec's default when the config names none
_ARRAYS = ("f32", "lookup", "ids", "scores")


class Prepared:
    """The cached (or freshly converted) parts of one model. `lookup`, `ids` and `scores` are
    set for Unigram models the query path can tokenise itself (see encoder.py)."""

    __slots__ = ("ids", "layout", "lookup", "matrix", "meta", "scores", "tokenizer")

    def __init__(self, layout: Layout, arrays: dict[str, np.ndarray], meta: dict[str, Any]):
        self.layout = layout
        self.meta = meta
        self.matrix = arrays["f32"]
        self.lookup: np.ndarray | None = arrays.get("lookup")
        self.ids: np.ndarray | None = arrays.get("ids")
        self.scores: np.ndarray | None = arrays.get("scores")
        self.tokenizer: Any = None  # the full tokenizers.Tokenizer when converted here


def source_key(layout: Layout) -> str:
    parts = [f"format={FORMAT}"]
    for file in (layout.embeddings, layout.tokenizer, layout.config):
        stat = file.stat()
        parts.append(f"{file}:{stat.st_size}:{stat.st_mtime_ns}")
    return "|".join(parts)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ModelError(f"{path} cannot be read: {exc}") from exc


def _matrix(layout: Layout) -> np.ndarray:
    from safetensors.numpy import load_file

    try:
        tensors = load_file(str(layout.embeddings))
    except Exception as exc:  # safetensors raises several types for a damaged file
        raise ModelError(f"{layout.embeddings} cannot be read: {exc}") from exc
    if layout.tensor not in tensors:
        raise ModelError(f"{layout.embeddings} has no `{layout.tensor}` tensor")
    matrix = np.asarray(tensors[layout.tensor], dtype=np.float32)
    if matrix.ndim != 2:
        raise ModelError(f"{layout.embeddings}: `{layout.tensor}` is not a matrix")
    # Vocabulary-quantised models map token ids to shared rows and weight each token: folding
    # both into one row per token keeps the query path a plain gather-and-mean.
    if "mapping" in tensors:
        matrix = matrix[np.asarray(tensors["mapping"], dtype=np.int64)]
    if "weights" in tensors:
        matrix = matrix * np.asarray(tensors["weights"], dtype=np.float32)[:, None]
    return np.ascontiguousarray(matrix, dtype=np.float32)


def _unigram_tables(
    raw: dict[str, Any], unk_id: int | None
) -> tuple[dict[str, np.ndarray], dict[str, Any]] | None:
    """Sorted pieces, their ids and the scores of a Unigram vocabulary, or None when the
    query path cannot reproduce this tokenizer exactly (then it always uses the full one)."""
    model = raw.get("model") or {}
    if model.get("type") != "Unigram" or model.get("byte_fallback") or unk_id is None:
        return None
    pieces = [str(piece) for piece, _ in model["vocab"]]
    added = raw.get("added_tokens") or []
    # numpy's fixed-width strings cannot hold NUL; added tokens must be vocabulary pieces.
    if any("\x00" in piece for piece in pieces) or any(int(t["id"]) >= len(pieces) for t in added):
        return None
    scores = np.asarray([float(score) for _, score in model["vocab"]], dtype=np.float64)
    # The Rust Unigram resolves a duplicated piece to its last id, as a dict does.
    last = dict(zip(pieces, range(len(pieces)), strict=True))
    ordered = sorted(last)
    tables = {
        "lookup": np.asarray(ordered, dtype=f"<U{max(map(len, ordered))}"),
        "ids": np.asarray([last[piece] for piece in ordered], dtype=np.int32),
        "scores": scores,
    }
    always = sorted({unk_id, *(int(t["id"]) for t in added)})
    extra = {
        "skeleton": {**raw, "model": {**model, "vocab": []}, "padding": None, "truncation": None},
        "always": [[i, pieces[i], float(scores[i])] for i in always],
        "min_score": float(scores.min()),
        "max_piece_chars": max(map(len, pieces)),
    }
    return tables, extra


def convert(layout: Layout) -> tuple[dict[str, np.ndarray], dict[str, Any], Any]:
    """Read a model folder the way model2vec 0.10 does; errors name the file and the fault."""
    from tokenizers import Tokenizer

    config = _read_json(layout.config)
    if not isinstance(config, dict):
        raise ModelError(f"{layout.config} cannot be read: not a JSON object")
    max_length = config.get("max_length", DEFAULT_MAX_LENGTH)
    if max_length is not None and (not isinstance(max_length, int) or max_length <= 0):
        raise ModelError(f"{layout.config}: max_length must be a positive integer or null")
    raw = _read_json(layout.tokenizer)
    if not isinstance(raw, dict):
        raise ModelError(f"{layout.tokenizer} cannot be read: not a JSON object")
    try:
        tokenizer = Tokenizer.from_file(str(layout.tokenizer))
    except Exception as exc:  # tokenizers raises a bare Exception on a bad file
        raise ModelError(f"{layout.tokenizer} cannot be read: {exc}") from exc
    # model2vec drops the unknown token before pooling; find it exactly as it does.
    if hasattr(tokenizer.model, "unk_token"):
        token = tokenizer.model.unk_token
        unk_id = None if token is None else tokenizer.token_to_id(token)
    else:
        unk_id = raw["model"].get("unk_id")
    vocab = sorted(tokenizer.get_vocab().items(), key=lambda item: item[1])
    matrix = _matrix(layout)
    if matrix.shape[0] < len(vocab):
        raise ModelError(
            f"{layout.embeddings}: {matrix.shape[0]} embedding rows do not cover a vocabulary "
            f"of {len(vocab)} tokens in {layout.tokenizer}"
        )
    meta: dict[str, Any] = {
        "format": FORMAT,
        "folder": str(layout.folder),
        "rows": int(matrix.shape[0]),
        "dim": int(matrix.shape[1]),
        "unk_id": unk_id,
        "max_length": max_length,
        # model2vec cuts each text to max_length x the median token length in characters
        # before tokenising; the cut changes long texts' vectors, so it is reproduced.
        "median_token_length": int(np.median([len(token) for token, _ in vocab])),
        "added_tokens": [str(t["content"]) for t in raw.get("added_tokens") or []],
        "skeleton": None,
    }
    arrays = {"f32": matrix}
    unigram = _unigram_tables(raw, unk_id)
    if unigram is not None:
        arrays.update(unigram[0])
        meta.update(unigram[1])
    return arrays, meta, tokenizer


def _npy_writer(array: np.ndarray) -> Callable[[IO[bytes]], None]:
    def write(fh: IO[bytes]) -> None:
        np.save(fh, array)

    return write


def content_hash(layout: Layout) -> str:
    """What an entry is named by: the model files' bytes (so clones whose model folders sit
    at different paths share one entry) and this cache's format."""
    digest = hashlib.sha256(f"format={FORMAT}".encode())
    for file in (layout.embeddings, layout.tokenizer, layout.config):
        with file.open("rb") as fh:
            digest.update(f"|{file.name}|{os.fstat(fh.fileno()).st_size}|".encode())
            while chunk := fh.read(1 << 20):
                digest.update(chunk)
    return digest.hexdigest()


def _stem(content: str) -> str:
    return f"model-{content[:24]}"


def _ref(layout: Layout, key: str) -> str:
    """The small file that maps the model files as they are on disk (path, size, mtime) to
    their content hash: a load reads it instead of hashing 20 MB each time."""
    return f"{layout.folder.name}-{zlib.crc32(key.encode()):08x}.ref"


def _known_hash(layout: Layout, cache_dir: Path, key: str) -> str | None:
    try:
        ref = json.loads((cache_dir / _ref(layout, key)).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(ref, dict) or ref.get("key") != key or not isinstance(ref.get("hash"), str):
        return None
    return str(ref["hash"])


def _load_cached(layout: Layout, cache_dir: Path, content: str) -> Prepared | None:
    stem = _stem(content)
    try:
        meta = json.loads((cache_dir / f"{stem}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or meta.get("hash") != content:
        return None
    names = _ARRAYS if meta.get("skeleton") is not None else _ARRAYS[:1]
    try:
        arrays = {name: np.load(cache_dir / f"{stem}.{name}.npy", mmap_mode="r") for name in names}
    except (OSError, ValueError) as exc:
        log.warning("embedding cache %s is damaged (%s); converting the model again", stem, exc)
        return None
    if arrays["f32"].dtype != np.float32 or arrays["f32"].shape != (meta["rows"], meta["dim"]):
        log.warning("embedding cache %s does not match its metadata; converting again", stem)
        return None
    return Prepared(layout, arrays, meta)


def _remove_stale(layout: Layout, cache_dir: Path, stem: str) -> None:
    """Drop caches of earlier versions of the same model folder: each is tens of megabytes."""
    for meta_file in cache_dir.glob("model-*.json"):
        other = meta_file.name[: -len(".json")]
        if other == stem:
            continue
        try:
            meta = json.loads(meta_file.read_text(encoding="utf-8"))
            if not isinstance(meta, dict) or meta.get("folder") != str(layout.folder):
                continue
            meta_file.unlink()
            for name in _ARRAYS:
                (cache_dir / f"{other}.{name}.npy").unlink(missing_ok=True)
        except (OSError, ValueError) as exc:
            log.debug("cannot remove stale embedding cache %s: %s", other, exc)


def prepare(layout: Layout, cache_dir: Path | None) -> Prepared:
    """The model's matrix and tokenising tables: from the cache when it holds them (made by
    any clone: entries are named by content), else converted and stored there."""
    key = source_key(layout)
    content = None
    if cache_dir is not None:
        content = _known_hash(layout, cache_dir, key)
        cached = _load_cached(layout, cache_dir, content) if content else None
        if cached is not None:
            return cached
        content = content_hash(layout)
        cached = _load_cached(layout, cache_dir, content)  # another clone converted it
        if cached is not None:
            _write_ref(layout, cache_dir, key, content)
            return cached
    arrays, meta, tokenizer = convert(layout)
    meta["key"] = key
    meta["hash"] = content
    prepared = Prepared(layout, arrays, meta)
    prepared.tokenizer = tokenizer
    if cache_dir is None or content is None:
        return prepared
    stem = _stem(content)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        for name, array in arrays.items():
            write_atomic(cache_dir / f"{stem}.{name}.npy", _npy_writer(array), durable=False)
        # Last: its presence means the arrays are whole.
        write_atomic(
            cache_dir / f"{stem}.json", json.dumps(meta, ensure_ascii=False), durable=False
        )
    except OSError as exc:  # a read-only cache is no reason to fail: use the model from memory
        log.info("cannot cache the embedding model in %s: %s", cache_dir, exc)
        return prepared
    _write_ref(layout, cache_dir, key, content)
    _remove_stale(layout, cache_dir, stem)
    cached = _load_cached(layout, cache_dir, content)
    if cached is None:  # written but unreadable: still usable from memory
        return prepared
    cached.tokenizer = tokenizer
    return cached


def _write_ref(layout: Layout, cache_dir: Path, key: str, content: str) -> None:
    try:
        text = json.dumps({"key": key, "hash": content}, ensure_ascii=False)
        write_atomic(cache_dir / _ref(layout, key), text, durable=False)
    except OSError as exc:
        log.info("cannot record the embedding model's hash in %s: %s", cache_dir, exc)
