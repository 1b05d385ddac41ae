"""Query-time text embeddings with only `tokenizers` and numpy.

`import model2vec` alone costs ~0.44 s; a hook cannot pay that. `load_encoder` gives the same
vectors as `model2vec.StaticModel.encode` (tested to cosine >= 0.9999) from a float32 copy of
the embedding matrix that is converted once into a cache folder and then memory-mapped.

    from memkit.embedding import load_encoder
    encoder = load_encoder(cache_dir=model_cache_dir(repo))  # the shipped model, per-user cache
    vectors = encoder.encode(["how often must the websocket ping?"])  # (1, 256) float32

A model reference is None/"default" (shipped with memkit), a model2vec model folder, or
`hf:<owner>/<name>` for a Hugging Face hub model (needs huggingface_hub; never implied).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memkit.embedding.locate import DEFAULT_MODEL_DIR, DEFAULT_NAME, ModelError, resolve_model

if TYPE_CHECKING:
    from memkit.embedding.encoder import Encoder, encode_bulk, load_encoder

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.embedding.encoder"}


def __getattr__(name: str) -> Any:
    # numpy (~40 ms) only when an encoder is wanted: `memkit index` finding nothing to do
    # resolves the model's folder and stops there.
    if name in ("Encoder", "encode_bulk", "load_encoder"):
        from memkit.embedding import encoder

        return getattr(encoder, name)
    raise AttributeError(name)


__all__ = [
    "DEFAULT_MODEL_DIR",
    "DEFAULT_NAME",
    "Encoder",
    "ModelError",
    "encode_bulk",
    "load_encoder",
    "resolve_model",
]
