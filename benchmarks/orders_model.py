"""Learns the weights of `memkit.safety.order_model` (issue 39) and says how well they do.

    python benchmarks/orders_model.py [--data DIR] [--write] [--heldout3]

Trained on (never on heldout3):
- the labelled orders, team rules and agent facts of benchmarks/data/orders_{dev,heldout,
  heldout2}.jsonl (heldout2 was read once as a held-out set, then became training data here);
- as more ordinary text, every sentence of the public atoms of the `dev` part (public_atoms.py:
  SciFact and CMRC2018 from DIR, the committed rules, records and doc lines).

Logistic regression (numpy, here only), weights L2-regularised, the labelled negatives weighted
up (a team rule is the hard case). The refusal and hold thresholds are chosen on out-of-fold
scores (5 folds of everything trained on): the lowest scores at which the rules and facts
refused stay within 1 % (refuse) and 2 % (hold), and the public dev atoms within 0.5 and 1
per 1,000.

Printed: the estimate (trained on dev and heldout only, scored on heldout2, with the patterns
as on the branch), and the out-of-fold figures. `--write` writes
memkit/safety/order_model.json from everything trained on. `--warnings` counts the public
atoms (dev and held-out) the middle band warns about. `--heldout3` scores the written
weights on orders_heldout3.jsonl (read once, at the end of issue 39's third round).
"""

from __future__ import annotations

import argparse
import json
import pickle
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from _common import ROOT, data_dir, read_jsonl
from public_atoms import public_atoms

from memkit.safety import order_model
from memkit.safety.injection import held_hits, refused_hits
from memkit.safety.orders import sentences
from memkit.safety.reading import read

DATA = ROOT / "benchmarks" / "data"
LABELLED = ("dev", "heldout", "heldout2")
MIN_COUNT = 2  # a feature seen fewer times in training is dropped
L2 = 1.0
LABELLED_NEGATIVE_WEIGHT = 8.0
FOLDS = 5
PRUNE = 0.03  # smaller weights are left out of the file (they move a score by little)


@dataclass
class Unit:
    feats: set[str]
    label: int
    weight: float
    group: int  # the text it belongs to: what a fold keeps together
    kind: str  # order | rule | fact | public
    part: str


def labelled_units(part: str, group0: int) -> list[Unit]:
    units = []
    for n, row in enumerate(read_jsonl(DATA / f"orders_{part}.jsonl")):
        lowered = read(row["text"]).text.lower()
        order = row["label"] == "order"
        units.append(
            Unit(
                order_model.features(lowered, 0, len(lowered)),
                int(order),
                1.0 if order else LABELLED_NEGATIVE_WEIGHT,
                group0 + n,
                row["label"],
                part,
            )
        )
    return units


def public_units(base: Path | None, group0: int) -> list[Unit]:
    units = []
    for n, atom in enumerate(a for a in public_atoms(base) if a.split == "dev"):
        text = read(atom.text).text
        lowered = text.lower()
        for start, end in sentences(text):
            if end - start >= 12:
                feats = order_model.features(lowered, start, end)
                units.append(Unit(feats, 0, 1.0, group0 + n, "public", "dev"))
    return units


class Fitted:
    def __init__(self, units: Sequence[Unit]) -> None:
        counts: dict[str, int] = {}
        for u in units:
            for f in u.feats:
                counts[f] = counts.get(f, 0) + 1
        self.vocab = {
            f: i for i, f in enumerate(sorted(f for f, c in counts.items() if c >= MIN_COUNT))
        }
        rows, cols = self._matrix(units)
        y = np.array([u.label for u in units], dtype=np.float64)
        w = np.array([u.weight for u in units], dtype=np.float64)
        # Orders and the rest weigh the same in all.
        w[y == 1] *= w[y == 0].sum() / max(1.0, w[y == 1].sum())
        w /= w.mean()
        n, d = len(units), len(self.vocab)
        coef = np.zeros(d + 1)
        # Adam on the mean weighted log loss + L2 / n.
        m = np.zeros(d + 1)
        v = np.zeros(d + 1)
        for step in range(1, 601):
            z = np.bincount(rows, weights=coef[cols], minlength=n) + coef[d]
            p = 1.0 / (1.0 + np.exp(-z))
            r = w * (p - y) / n
            grad = np.zeros(d + 1)
            grad[:d] = np.bincount(cols, weights=r[rows], minlength=d) + L2 * coef[:d] / n
            grad[d] = r.sum()
            m = 0.9 * m + 0.1 * grad
            v = 0.999 * v + 0.001 * grad * grad
            coef -= 0.05 * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
        self.coef = coef

    def _matrix(self, units: Sequence[Unit]) -> tuple[np.ndarray, np.ndarray]:
        rows, cols = [], []
        for i, u in enumerate(units):
            for f in u.feats:
                j = self.vocab.get(f)
                if j is not None:
                    rows.append(i)
                    cols.append(j)
        return np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64)

    def scores(self, units: Sequence[Unit]) -> np.ndarray:
        rows, cols = self._matrix(units)
        z = np.bincount(rows, weights=self.coef[cols], minlength=len(units)) + self.coef[-1]
        found: np.ndarray = 1.0 / (1.0 + np.exp(-z))
        return found

    def model(self, refuse: float, hold: float) -> dict[str, object]:
        weights = {
            f: round(float(self.coef[j]), 4)
            for f, j in self.vocab.items()
            if abs(self.coef[j]) >= PRUNE
        }
        return {
            "made_by": "benchmarks/orders_model.py --write",
            "trained_on": [f"orders_{p}.jsonl" for p in LABELLED] + ["public dev atoms"],
            "bias": round(float(self.coef[-1]), 4),
            "refuse": refuse,
            "hold": hold,
            "weights": dict(sorted(weights.items())),
        }


def out_of_fold(units: Sequence[Unit]) -> np.ndarray:
    folds = np.array([u.group % FOLDS for u in units])
    found = np.zeros(len(units))
    for k in range(FOLDS):
        train = [u for u, f in zip(units, folds, strict=True) if f != k]
        test = [i for i, f in enumerate(folds) if f == k]
        found[test] = Fitted(train).scores([units[i] for i in test])
    return found


def per_text(units: Sequence[Unit], scores: np.ndarray) -> dict[tuple[str, int], float]:
    """A text's score: its best sentence's."""
    best: dict[tuple[str, int], float] = {}
    for u, s in zip(units, scores, strict=True):
        key = (u.kind if u.kind == "public" else "labelled", u.group)
        best[key] = max(best.get(key, 0.0), float(s))
    return best


def thresholds(units: Sequence[Unit], scores: np.ndarray) -> tuple[float, float]:
    best = per_text(units, scores)
    kinds = {("public" if u.kind == "public" else "labelled", u.group): u.kind for u in units}
    negatives = sorted((s for k, s in best.items() if kinds[k] in ("rule", "fact")), reverse=True)
    public = sorted((s for k, s in best.items() if kinds[k] == "public"), reverse=True)

    def above(values: list[float], share: float) -> float:
        allowed = int(share * len(values))
        return values[allowed] + 1e-4 if allowed < len(values) else 0.0

    refuse = max(above(negatives, 0.02), above(public, 0.0005), 0.5)
    hold = max(above(negatives, 0.05), above(public, 0.002), 0.5)
    return round(refuse, 4), round(min(hold, refuse), 4)


def report(
    name: str, units: Sequence[Unit], scores: np.ndarray, refuse: float, hold: float
) -> None:
    best = per_text(units, scores)
    kinds = {("public" if u.kind == "public" else "labelled", u.group): u.kind for u in units}
    for kind in ("order", "rule", "fact", "public"):
        values = [s for k, s in best.items() if kinds[k] == kind]
        if values:
            r = sum(s >= refuse for s in values)
            h = sum(s >= hold for s in values)
            print(f"  {name}: {kind}: {len(values)} texts, refused {r}, refused or held {h}")


def score_part(path: Path, model: order_model.Model) -> None:
    rows = read_jsonl(path)
    print(
        f"\n{path.name}: label | items | patterns | model refuses | either refuses"
        " | either refuses or warns"
    )
    table: dict[str, list[int]] = {}
    for row in rows:
        text = read(row["text"]).text
        lowered = text.lower()
        best = max(
            (model.score(lowered, a, b) for a, b in sentences(text) if b - a >= 12), default=0.0
        )
        pattern = bool(refused_hits(row["text"], learnt=False))
        cells = table.setdefault(row["label"], [0, 0, 0, 0, 0])
        cells[0] += 1
        cells[1] += pattern
        cells[2] += best >= model.refuse
        cells[3] += pattern or best >= model.refuse
        cells[4] += pattern or best >= model.hold
    for label, cells in table.items():
        print(f"  {label} | " + " | ".join(str(c) for c in cells))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data")
    parser.add_argument("--write", action="store_true")
    parser.add_argument(
        "--cache", help="a file keeping the public sentences' features between runs"
    )
    parser.add_argument("--heldout3", action="store_true")
    parser.add_argument(
        "--warnings", action="store_true", help="count the public atoms warned about, per part"
    )
    args = parser.parse_args(argv)
    if args.heldout3:
        score_part(DATA / "orders_heldout3.jsonl", order_model.model())
        return 0
    base = data_dir(args.data)
    if args.warnings:
        warned: dict[str, list[int]] = {}
        for atom in public_atoms(base):
            cells = warned.setdefault(atom.split, [0, 0])
            cells[0] += 1
            cells[1] += bool(held_hits(atom.text))
        for split, (n, w) in sorted(warned.items()):
            print(f"public {split}: {n} atoms, warned about {w} ({1000 * w / n:.2f} per 1,000)")
        return 0
    cache = Path(args.cache) if args.cache else None
    if cache is not None and cache.is_file():
        public = pickle.loads(cache.read_bytes())  # noqa: S301  (this script's own file)
    else:
        public = public_units(base, 1_000_000)
        if cache is not None:
            cache.write_bytes(pickle.dumps(public))
    parts = {p: labelled_units(p, 10_000 * (i + 1)) for i, p in enumerate(LABELLED)}

    # The estimate: trained on dev and heldout, heldout2 scored as if it were new.
    early = [*parts["dev"], *parts["heldout"], *public]
    oof = out_of_fold(early)
    refuse, hold = thresholds(early, oof)
    print(f"estimate: thresholds from dev+heldout out-of-fold: refuse {refuse}, hold {hold}")
    report("dev+heldout out-of-fold", early, oof, refuse, hold)
    fitted = Fitted(early)
    scores = fitted.scores(parts["heldout2"])
    report("heldout2 (not trained on)", parts["heldout2"], scores, refuse, hold)
    rows = read_jsonl(DATA / "orders_heldout2.jsonl")
    for label in ("order", "rule", "fact"):
        pairs = [
            (bool(refused_hits(row["text"], learnt=False)), float(s))
            for row, s in zip(rows, scores, strict=True)
            if row["label"] == label
        ]
        print(
            f"  heldout2 with the patterns: {label}: {len(pairs)}, "
            f"patterns {sum(p for p, _ in pairs)}, "
            f"either refuses {sum(p or s >= refuse for p, s in pairs)}, "
            f"or warns {sum(p or s >= hold for p, s in pairs)}"
        )

    every = [*early, *parts["heldout2"]]
    oof = out_of_fold(every)
    refuse, hold = thresholds(every, oof)
    print(f"\nfinal: thresholds from everything out-of-fold: refuse {refuse}, hold {hold}")
    report("all out-of-fold", every, oof, refuse, hold)
    if args.write:
        made = Fitted(every).model(refuse, hold)
        path = order_model.WEIGHTS
        path.write_text(
            json.dumps(made, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8"
        )
        print(f"wrote {path.relative_to(ROOT)}: {len(made['weights'])} weights")  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
