"""Query-time text embeddings with only `tokenizers` and numpy.

`import model2vec` alone costs ~0.44 s; a hook cannot pay that. This encoder gives the same
vectors as `model2vec.StaticModel.encode` (tokenise without special tokens, drop the unknown
token, truncate to the model's max length, mean the rows, L2-normalise) from a float32 copy of
the embedding matrix that is written once and then memory-mapped.
"""

from __future__ import annotations

from memkit.embedding.encoder import (
    DEFAULT_MODEL_DIR,
    Encoder,
    ModelError,
    encode_bulk,
    load_encoder,
    resolve_model,
)

__all__ = [
    "DEFAULT_MODEL_DIR",
    "Encoder",
    "ModelError",
    "encode_bulk",
    "load_encoder",
    "resolve_model",
]
