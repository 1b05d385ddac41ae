"""Loading a model2vec model folder and encoding text with it."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memkit.errors import MemkitError

if TYPE_CHECKING:
    import numpy as np
    from tokenizers import Tokenizer

log = logging.getLogger(__name__)

DEFAULT_NAME = "me5-small-64k-int8"
DEFAULT_MODEL_DIR = Path(__file__).resolve().parent.parent / "models" / DEFAULT_NAME
_REQUIRED = ("model.safetensors", "tokenizer.json")


class ModelError(MemkitError):
    """The embedding model cannot be found or read."""


def resolve_model(model: str | os.PathLike[str] | None, base: Path | None = None) -> Path:
    """The folder of a model reference: None/"default" is the model shipped with memkit,
    anything else a path (relative to `base`, e.g. the memory repository)."""
    if model is None or str(model) in ("", "default"):
        path = DEFAULT_MODEL_DIR
    else:
        path = Path(model).expanduser()
        if not path.is_absolute() and base is not None:
            path = base / path
    if not path.is_dir():
        raise ModelError(
            f"embedding model folder {path} does not exist; set `embedding.model` "
            "in memkit.yaml to a model2vec model folder (memkit never downloads)"
        )
    missing = [name for name in _REQUIRED if not (path / name).is_file()]
    if missing:
        raise ModelError(
            f"embedding model folder {path} is incomplete: missing {', '.join(missing)}"
        )
    return path


def _fingerprint(path: Path) -> str:
    digest = hashlib.sha256()
    for name in (*_REQUIRED, "config.json"):
        file = path / name
        if file.is_file():
            stat = file.stat()
            digest.update(f"{name}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def _matrix_from_safetensors(path: Path) -> np.ndarray:
    import numpy as np  # noqa: PLC0415
    from safetensors.numpy import load_file  # noqa: PLC0415

    try:
        tensors = load_file(str(path / "model.safetensors"))
    except Exception as exc:  # safetensors raises several types for a damaged file
        raise ModelError(f"{path / 'model.safetensors'} cannot be read: {exc}") from exc
    if "embeddings" not in tensors:
        raise ModelError(f"{path / 'model.safetensors'} has no `embeddings` tensor")
    if "mapping" in tensors or "weights" in tensors:
        raise ModelError(
            f"{path}: quantised vocabularies and token weights are not supported "
            "by memkit's encoder; use a plain model2vec model"
        )
    return np.asarray(tensors["embeddings"], dtype=np.float32)


def _cached_matrix(path: Path, cache_dir: Path | None) -> np.ndarray:
    """The float32 matrix, converted once and then opened with mmap (cheap to load)."""
    import numpy as np  # noqa: PLC0415

    if cache_dir is None:
        return _matrix_from_safetensors(path)
    cache = cache_dir / f"{path.name}-{_fingerprint(path)}.f32.npy"
    if cache.is_file():
        try:
            loaded: np.ndarray = np.load(cache, mmap_mode="r")
            return loaded
        except (OSError, ValueError):
            log.warning("embedding cache %s is damaged; rebuilding it", cache)
    matrix = _matrix_from_safetensors(path)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache_dir, suffix=".npy.tmp")
        with os.fdopen(fd, "wb") as fh:
            np.save(fh, matrix)
        Path(tmp).replace(cache)
        mapped: np.ndarray = np.load(cache, mmap_mode="r")
        return mapped
    except OSError as exc:  # a read-only cache is no reason to fail: use it from memory
        log.info("cannot cache the embedding matrix in %s: %s", cache_dir, exc)
        return matrix


def _load_tokenizer(path: Path, max_length: int | None) -> tuple[Tokenizer, int | None]:
    from tokenizers import Tokenizer  # noqa: PLC0415

    try:
        tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
    except Exception as exc:  # tokenizers raises a bare Exception on a bad file
        raise ModelError(f"{path / 'tokenizer.json'} cannot be read: {exc}") from exc
    tokenizer.no_padding()
    if max_length:
        tokenizer.enable_truncation(max_length)
    else:
        tokenizer.no_truncation()
    # model2vec drops the unknown token before pooling: find it the same way it does.
    unk: int | None = None
    model = tokenizer.model
    if hasattr(model, "unk_token"):
        token = getattr(model, "unk_token", None)
        unk = tokenizer.token_to_id(token) if token else None
    else:
        unk = json.loads(tokenizer.to_str())["model"].get("unk_id")
    return tokenizer, unk


@dataclass
class Encoder:
    name: str
    path: Path
    matrix: Any  # np.ndarray (possibly memory-mapped), rows aligned with token ids
    tokenizer: Any
    unk_id: int | None
    normalize: bool = True

    @property
    def dim(self) -> int:
        return int(self.matrix.shape[1])

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        encodings = self.tokenizer.encode_batch_fast(list(texts), add_special_tokens=False)
        unk = self.unk_id
        return [[i for i in e.ids if i != unk] for e in encodings]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np  # noqa: PLC0415

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        ids = self.token_ids(texts)
        lengths = np.fromiter((len(i) for i in ids), dtype=np.int64, count=len(ids))
        rows = np.flatnonzero(lengths)
        if rows.size:
            flat = np.fromiter((t for i in ids for t in i), dtype=np.int64, count=lengths.sum())
            starts = np.concatenate(([0], np.cumsum(lengths[rows])[:-1]))
            # One gather and one segmented sum for the whole batch, not a loop per text.
            sums = np.add.reduceat(self.matrix[flat].astype(np.float32, copy=False), starts)
            out[rows] = sums / lengths[rows, None]
        if self.normalize:
            norms = np.linalg.norm(out, axis=1, keepdims=True)
            np.divide(out, norms, out=out, where=norms > 0)
        return out


def load_encoder(
    model: str | os.PathLike[str] | None = None,
    *,
    cache_dir: Path | None = None,
    base: Path | None = None,
) -> Encoder:
    path = resolve_model(model, base)
    try:
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        config = {}
    except (OSError, ValueError) as exc:
        raise ModelError(f"{path / 'config.json'} cannot be read: {exc}") from exc
    max_length = config.get("max_length", 512)
    tokenizer, unk = _load_tokenizer(path, max_length if isinstance(max_length, int) else None)
    matrix = _cached_matrix(path, cache_dir)
    if matrix.ndim != 2 or matrix.shape[0] < tokenizer.get_vocab_size():
        raise ModelError(
            f"{path}: embedding matrix {matrix.shape} does not fit a vocabulary "
            f"of {tokenizer.get_vocab_size()} tokens"
        )
    return Encoder(path.name, path, matrix, tokenizer, unk, bool(config.get("normalize", True)))


def encode_bulk(encoder: Encoder, texts: Sequence[str], batch_size: int = 2048) -> np.ndarray:
    """Encode many texts (indexing): the same vectors, in batches to bound memory."""
    import numpy as np  # noqa: PLC0415

    if not texts:
        return np.zeros((0, encoder.dim), dtype=np.float32)
    parts = [encoder.encode(texts[i : i + batch_size]) for i in range(0, len(texts), batch_size)]
    return np.concatenate(parts)
