"""Fusing BM25, vector and trigger candidates into one ranking.

Measured here (docs/benchmarks.md): plain reciprocal-rank fusion loses to BM25 alone, because
static vectors are much weaker than BM25 when query and atom share words. So BM25 leads:
each list's scores are normalised within its candidate pool (BM25 by its best score, cosines
between the pool's floor and top; for recall, a pool that is the whole of a small memory
from at least `min_span` below its top), and the vector score is added with a weight tuned on the
SciFact training queries. When BM25 finds nothing (a paraphrase, another wording), the vector
list decides alone, and when BM25's best score is weak the vector weight grows (a "rescue"
for paraphrases) while BM25's own weight shrinks by the same confidence. Defaults chosen on
SciFact train and CMRC2018 trial, where the rescue changes nothing, and checked on the
project's paraphrase sets (see docs/benchmarks.md). Exact trigger matches always surface
first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

TRIGGER_BONUS = 10.0
POOL = 50  # candidates taken from each list before fusion


@dataclass(frozen=True)
class FusionParams:
    vector_weight: float = 0.1
    # When BM25's best score is low (few or common words matched), vectors get more say:
    # weight = vector_weight + rescue_weight * (1 - min(1, best_bm25 / confident_bm25)).
    rescue_weight: float = 1.0
    confident_bm25: float = 10.0
    # ...and BM25's own say shrinks by the same confidence, so that one weak match (a common
    # word, a single shared character) does not outrank what the vectors found.
    discount_weak_bm25: bool = True
    # A vector pool smaller than `full_pool` is the whole memory, and its least similar atom
    # may be as relevant as the best (a new team's memory of two atoms on one subject): recall
    # (`memkit.recall.pipeline`, which has an absolute relevance floor of its own) scales it from
    # at least `min_span` cosine below the best, so that atom is not scored 0 and cut. Search
    # and the CI eval gate rank without such a floor: for them 0 (the pool's own floor), or
    # every atom of a small memory would be "found" by a static vector.
    min_span: float = 0.0
    full_pool: int = POOL


def fuse(
    bm25: Sequence[tuple[int, float]],
    vector: Sequence[tuple[int, float]],
    triggers: Sequence[tuple[int, str]],
    *,
    mode: str = "hybrid",
    params: FusionParams | None = None,
) -> list[tuple[int, float, str]]:
    """Rows ranked best first, each with its fused score and a one-line reason."""
    params = params or FusionParams()
    bm25_rank = {row: i + 1 for i, (row, _) in enumerate(bm25)}
    vec_rank = {row: i + 1 for i, (row, _) in enumerate(vector)}
    if mode == "bm25":
        return [(row, s, f"BM25 #{i + 1} ({s:.2f})") for i, (row, s) in enumerate(bm25)]
    if mode == "vector":
        return [(row, s, f"vector #{i + 1} (cos {s:.3f})") for i, (row, s) in enumerate(vector)]

    top_bm25 = max((s for _, s in bm25), default=0.0)
    cos = dict(vector)
    floor = min(cos.values(), default=0.0)
    if len(cos) < params.full_pool:
        floor = min(floor, max(cos.values(), default=0.0) - params.min_span)
    span = max(cos.values(), default=0.0) - floor
    confidence = min(1.0, top_bm25 / params.confident_bm25) if params.confident_bm25 > 0 else 1.0
    weight = params.vector_weight + params.rescue_weight * (1.0 - confidence)
    scores: dict[int, float] = {}
    bm25_weight = confidence if params.discount_weak_bm25 else 1.0
    for row, s in bm25:
        scores[row] = bm25_weight * s / top_bm25 if top_bm25 > 0 else 0.0
    for row, c in cos.items():
        scores[row] = scores.get(row, 0.0) + weight * ((c - floor) / span if span > 0 else 0.0)
    matched = {}
    for row, trig in triggers:
        matched[row] = trig
        scores[row] = scores.get(row, 0.0) + TRIGGER_BONUS

    def why(row: int) -> str:
        parts = []
        if row in matched:
            parts.append(f"trigger '{matched[row]}'")
        if row in bm25_rank:
            parts.append(f"BM25 #{bm25_rank[row]}")
        if row in vec_rank:
            parts.append(f"vector #{vec_rank[row]} (cos {cos[row]:.3f})")
        return "; ".join(parts)

    # At the floor of the vector pool and absent from BM25: no evidence at all.
    ranked = sorted(((r, s) for r, s in scores.items() if s > 0), key=lambda kv: (-kv[1], kv[0]))
    return [(row, score, why(row)) for row, score in ranked]
