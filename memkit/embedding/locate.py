"""Where a model reference points: the shipped model, a local folder, or (explicitly) the hub.

memkit never reaches a model hub by accident: a path that does not exist is an error, and only
a reference written as `hf:<owner>/<name>` asks huggingface_hub (installed with model2vec), which
honours `HF_HUB_OFFLINE` and its local cache.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from memkit.errors import MemkitError

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"huggingface_hub"}


DEFAULT_NAME = "me5-small-64k-int8"
DEFAULT_MODEL_DIR = Path(__file__).resolve().parent.parent / "models" / DEFAULT_NAME
HUB_PREFIX = "hf:"


class ModelError(MemkitError):
    """The embedding model cannot be found or read; the message names the path and the fault."""


class Layout(NamedTuple):
    """The files of one model folder, in one of the layouts model2vec itself accepts."""

    folder: Path
    embeddings: Path
    tokenizer: Path
    config: Path
    tensor: str  # name of the embedding matrix inside the safetensors file


# The same three layouts, in the same order, as model2vec 0.10's loader tries.
_LAYOUTS = (
    ("model.safetensors", "tokenizer.json", "config.json", "embeddings"),
    (
        "model.safetensors",
        "tokenizer.json",
        "config_sentence_transformers.json",
        "embedding.weight",
    ),
    (
        "0_StaticEmbedding/model.safetensors",
        "0_StaticEmbedding/tokenizer.json",
        "config_sentence_transformers.json",
        "embedding.weight",
    ),
)


def _layout(folder: Path) -> Layout:
    for embeddings, tokenizer, config, tensor in _LAYOUTS:
        layout = Layout(folder, folder / embeddings, folder / tokenizer, folder / config, tensor)
        if layout.embeddings.is_file() and layout.tokenizer.is_file() and layout.config.is_file():
            return layout
    embeddings, tokenizer, config, _ = _LAYOUTS[0]
    missing = [name for name in (embeddings, tokenizer, config) if not (folder / name).is_file()]
    raise ModelError(
        f"embedding model folder {folder} is incomplete: missing {', '.join(missing)} "
        "(a model2vec model folder holds model.safetensors, tokenizer.json and config.json)"
    )


def _from_hub(name: str) -> Path:
    repo_id = name[len(HUB_PREFIX) :].strip()
    if repo_id.count("/") != 1:
        raise ModelError(f"embedding model {name!r}: a hub reference is hf:<owner>/<name>")
    try:
        # Installed with model2vec; only a hub reference ever imports it.
        from huggingface_hub import snapshot_download
    except ImportError as exc:
        raise ModelError(
            f"embedding model {name!r} names a Hugging Face hub model, which needs "
            "huggingface_hub (pip install model2vec); or give a local model folder"
        ) from exc
    patterns = sorted({f for layout in _LAYOUTS for f in layout[:3]})
    try:
        folder = snapshot_download(repo_id, repo_type="model", allow_patterns=patterns)
    except Exception as exc:  # hub errors come in many types (offline, missing, HTTP)
        offline = ""
        if os.environ.get("HF_HUB_OFFLINE", "").strip() not in ("", "0"):
            offline = " (HF_HUB_OFFLINE is set: only the local hub cache is used)"
        raise ModelError(
            f"embedding model {name!r} cannot be had from the Hugging Face hub{offline}: "
            f"{type(exc).__name__}: {exc}"
        ) from exc
    return Path(folder)


def locate(model: str | os.PathLike[str] | None, base: Path | None = None) -> Layout:
    """The files of a model reference; raises ModelError naming the path and what is wrong."""
    if model is None or str(model).strip() in ("", "default"):
        folder = DEFAULT_MODEL_DIR
    elif isinstance(model, str) and model.strip().startswith(HUB_PREFIX):
        folder = _from_hub(model.strip())
    else:
        folder = Path(model).expanduser()
        if not folder.is_absolute() and base is not None:
            folder = base / folder
    if not folder.is_dir():
        hint = ""
        if isinstance(model, str) and model.count("/") == 1 and not model.startswith((".", "/")):
            hint = f"; for a Hugging Face hub model write hf:{model}"
        what = "is not a folder" if folder.exists() else "does not exist"
        raise ModelError(
            f"embedding model folder {folder} {what}; set `embedding.model` in memkit.yaml to "
            f"a model2vec model folder (memkit never downloads on its own){hint}"
        )
    return _layout(folder.resolve())


def resolve_model(model: str | os.PathLike[str] | None, base: Path | None = None) -> Path:
    """The folder of a model reference: None or "default" is the model shipped with memkit;
    `hf:<owner>/<name>` a hub model; anything else a path (relative to `base`)."""
    return locate(model, base).folder
