"""Learns the weights of `memkit.safety.order_model` (issue 39) and says how well they do.

    python benchmarks/orders_model.py [--data DIR] [--cache FILE] [--write] [--warnings]

Trained on the labelled orders, team rules and agent facts of benchmarks/data/orders_{dev,
heldout,heldout2,heldout3,heldout4,heldout5,heldout6}.jsonl (each was read once as a held-out
set, then became training data; heldout4 in the fifth round, heldout5 in the sixth, heldout6 in
the seventh; heldout7 is not read here) and, as more ordinary
text, every sentence the model scores of the public atoms of the `dev` part (public_atoms.py:
SciFact and CMRC2018 from DIR, the committed rules, records and doc lines). The public
`heldout` part is never trained on: it only counts false refusals.

Logistic regression (numpy, here only), weights L2-regularised, the labelled negatives weighted
up (a team rule is the hard case). The refusal and hold thresholds are chosen on out-of-fold
scores (5 folds of the texts trained on, a text scored as the check scores it: its best
sentence): the lowest scores at which the rules and facts stay within `REFUSE_NEGATIVES` refused
and `HOLD_NEGATIVES` refused or held, and the public dev atoms within `REFUSE_PUBLIC` and
`HOLD_PUBLIC` (per atom).

Printed, the estimate by set (leave one set out): for each labelled set in turn, a model made
(thresholds too) from the other sets and the public dev atoms scores the set left out and the
public held-out atoms, alone and with the patterns of `memkit.safety.orders`; then the
out-of-fold figures of everything, and the by-set figures by class and language (`--errors
FILE` lists the by-set errors: orders missed, rules and facts refused or held). A base64 run's
decoded text is scored as the check scores it. `--write` writes memkit/safety/order_model.json
from everything trained on. `--warnings` counts the public atoms (dev and held-out) the written
weights hold. `--families`, `--l2`, `--min-count` and `--negative-weight` try other settings
(the by-set estimate chooses them; the defaults below are the chosen ones).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from _common import ROOT, data_dir, read_jsonl
from public_atoms import public_atoms

from memkit.safety import injection, order_model, orders, reading
from memkit.safety.injection import held_hits, refused_hits
from memkit.safety.reading import read

DATA = ROOT / "benchmarks" / "data"
LABELLED = ("dev", "heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6")
FAMILIES = ("w", "b", "c", "f", "s", "p", "x", "o", "n", "k", "d")
MIN_COUNT = 1  # a feature seen fewer times in training is dropped
L2 = 1.0
LABELLED_NEGATIVE_WEIGHT = 32.0
FOLDS = 5
STEPS = 300
PRUNE = 0.03  # smaller weights are left out of the file (they move a score by little)
REFUSE_NEGATIVES = 0.01
REFUSE_PUBLIC = 0.0005
HOLD_NEGATIVES = 0.07
HOLD_PUBLIC = 0.002


@dataclass
class Text:
    kind: str  # order | rule | fact | public
    part: str  # the labelled set, or the public split
    group: int  # what a fold keeps together
    whole: list[str]  # the features of the whole text (a labelled text is trained on as one)
    sentences: list[list[str]]  # those of each sentence the check scores
    pattern: bool  # the patterns refuse it
    label: str = ""  # a labelled text's class and language ("report/zh")
    raw: str = ""
    ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    sentence_ids: list[np.ndarray] = field(default_factory=list)
    # Per sentence: its action only adds a check (`order_model.guarded`): held, never refused.
    guarded: list[bool] = field(default_factory=list)


def _features(lowered: str, start: int, end: int, under: bool) -> list[str]:
    if not hasattr(order_model, "headed"):
        # An older checkout through PYTHONPATH (the "before" figures): no headings read.
        return sorted(order_model.features(lowered, start, end))
    return sorted(order_model.features(lowered, start, end, under=under))


def _text(kind: str, part: str, group: int, raw: str, label: str = "") -> Text:
    text = read(raw).text
    lowered = text.lower()
    sections = order_model.headed(text) if hasattr(order_model, "headed") else []
    whole = _features(lowered, 0, len(lowered), bool(sections)) if kind != "public" else []
    sentences = [
        _features(lowered, a, b, any(x <= a < y for x, y in sections))
        for a, b in order_model.spans(text)
    ]
    # The check scores a base64 run's decoded text as it scores the rest, as spoken to the
    # agent (not before this round: an older checkout has no `encoded`).
    for _, _, decoded in getattr(injection, "encoded", lambda _raw: ())(raw):
        low = decoded.lower()
        sentences += [_features(low, a, b, True) for a, b in order_model.spans(decoded)]
    pattern = bool(refused_hits(raw, learnt=False))
    return Text(kind, part, group, whole, sentences, pattern, label, raw if label else "")


def load(base: Path | None, cache: Path | None) -> list[Text]:
    # The cache is good for the feature code it was made with.
    stamp = hashlib.sha256(
        Path(str(order_model.__file__)).read_bytes()
        + Path(str(orders.__file__)).read_bytes()
        + order_model.TRADITIONAL.read_bytes()
        + Path(str(injection.__file__)).read_bytes()
        + Path(str(reading.__file__)).read_bytes()
        + Path(__file__).read_bytes()
        + str(base).encode()
    ).hexdigest()[:16]
    if cache is not None and cache.is_file():
        kept = pickle.loads(cache.read_bytes())  # noqa: S301  (this script's own file)
        if kept[0] == stamp:
            return [Text(*fields) for fields in kept[1]]
    texts = []
    for i, part in enumerate(LABELLED):
        for n, row in enumerate(read_jsonl(DATA / f"orders_{part}.jsonl")):
            label = f"{row.get('class', row['label'])}/{row.get('lang', '?')}"
            texts.append(_text(row["label"], part, 10_000 * (i + 1) + n, row["text"], label))
    for n, atom in enumerate(public_atoms(base)):
        texts.append(_text("public", f"public-{atom.split}", 1_000_000 + n, atom.text))
    if cache is not None:
        # Plain tuples: the file reads back whoever imports this module.
        plain = [
            (t.kind, t.part, t.group, t.whole, t.sentences, t.pattern, t.label, t.raw)
            for t in texts
        ]
        cache.write_bytes(pickle.dumps((stamp, plain)))
    return texts


@dataclass(frozen=True)
class Settings:
    families: frozenset[str] = frozenset(FAMILIES)
    min_count: int = MIN_COUNT
    l2: float = L2
    negative_weight: float = LABELLED_NEGATIVE_WEIGHT


class Space:
    """Every feature seen, numbered once; the texts keep their features as numbers."""

    def __init__(self, texts: Sequence[Text]) -> None:
        names: dict[str, int] = {}
        for t in texts:
            for feats in (t.whole, *t.sentences):
                for f in feats:
                    names.setdefault(f, len(names))
        self.names = names
        self.family = np.array([n.split(":", 1)[0] for n in names])

        def ids(feats: list[str]) -> np.ndarray:
            return np.array([names[f] for f in feats], dtype=np.int64)

        # An older checkout through PYTHONPATH (the "before" figures) refuses any sentence.
        guarded = getattr(order_model, "guarded", lambda _found: False)
        for t in texts:
            t.ids = ids(t.whole)
            t.sentence_ids = [ids(s) for s in t.sentences]
            t.guarded = [guarded(s) for s in t.sentences]


def training_rows(texts: Sequence[Text], settings: Settings) -> list[tuple[np.ndarray, int, float]]:
    rows = []
    for t in texts:
        if t.kind == "public":
            rows += [(s, 0, 1.0) for s in t.sentence_ids]
        else:
            order = t.kind == "order"
            rows.append((t.ids, int(order), 1.0 if order else settings.negative_weight))
    return rows


class Fitted:
    def __init__(self, space: Space, texts: Sequence[Text], settings: Settings) -> None:
        rows = training_rows(texts, settings)
        allowed = np.isin(space.family, sorted(settings.families))
        counts = np.bincount(np.concatenate([r[0] for r in rows]), minlength=len(space.names))
        keep = allowed & (counts >= settings.min_count)
        local = np.full(len(space.names), -1, dtype=np.int64)
        local[keep] = np.arange(int(keep.sum()))
        self.space = space
        self.local = local
        d = int(keep.sum())
        n = len(rows)
        # Each row's kept features and the bias (feature d, in every row): rows in order
        # (CSR), and the same entries by feature (CSC), so both sums are `reduceat`s.
        pieces = []
        for features, _, _ in rows:
            c = local[features]
            pieces.append(np.append(c[c >= 0], d))
        cols = np.concatenate(pieces)
        indptr = np.concatenate([[0], np.cumsum([len(c) for c in pieces])[:-1]])
        row_of = np.repeat(np.arange(n), [len(c) for c in pieces])
        by_col = np.argsort(cols, kind="stable")
        rows_csc = row_of[by_col]
        colptr = np.searchsorted(cols[by_col], np.arange(d + 1))
        y = np.array([r[1] for r in rows], dtype=np.float64)
        w = np.array([r[2] for r in rows], dtype=np.float64)
        # Orders and the rest weigh the same in all.
        w[y == 1] *= w[y == 0].sum() / max(1.0, w[y == 1].sum())
        w /= w.mean()
        coef = np.zeros(d + 1)
        # Adam on the mean weighted log loss + L2 / n (the bias not regularised).
        m = np.zeros(d + 1)
        v = np.zeros(d + 1)
        for step in range(1, STEPS + 1):
            z = np.add.reduceat(coef[cols], indptr)
            p = 1.0 / (1.0 + np.exp(-z))
            r = w * (p - y) / n
            grad = np.add.reduceat(r[rows_csc], colptr)
            grad[:d] += settings.l2 * coef[:d] / n
            m = 0.9 * m + 0.1 * grad
            v = 0.999 * v + 0.001 * grad * grad
            coef -= 0.05 * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
        self.coef = coef
        self.settings = settings
        # Every feature's weight by its global number (0 for those not kept).
        self.full = np.zeros(len(space.names))
        self.full[keep] = coef[:d]

    def best(self, texts: Sequence[Text]) -> np.ndarray:
        """Each text's scores as the check reads it: its best sentence's (0 with none), for
        holding, and its best sentence's that is not guarded, for refusing (one row each)."""
        found = np.zeros((len(texts), 2))
        pieces = [
            (i, s, g)
            for i, t in enumerate(texts)
            for s, g in zip(t.sentence_ids, t.guarded, strict=True)
        ]
        if not pieces:
            return found
        owner = np.array([i for i, _, _ in pieces])
        z = np.array([self.full[s].sum() for _, s, _ in pieces]) + self.coef[-1]
        p = 1.0 / (1.0 + np.exp(-z))
        np.maximum.at(found[:, 0], owner, p)
        np.maximum.at(found[:, 1], owner, np.where([g for _, _, g in pieces], 0.0, p))
        return found

    def model(self, refuse: float, hold: float) -> dict[str, object]:
        names = list(self.space.names)
        weights = {
            names[j]: round(float(self.full[j]), 4)
            for j in np.flatnonzero(np.abs(self.full) >= PRUNE)
        }
        return {
            "made_by": "benchmarks/orders_model.py --write",
            "trained_on": [f"orders_{p}.jsonl" for p in LABELLED] + ["public dev atoms"],
            "families": sorted(self.settings.families),
            "bias": round(float(self.coef[-1]), 4),
            "refuse": refuse,
            "hold": hold,
            "weights": dict(sorted(weights.items())),
        }


def out_of_fold(space: Space, texts: Sequence[Text], settings: Settings) -> np.ndarray:
    found = np.zeros((len(texts), 2))
    for k in range(FOLDS):
        train = [t for t in texts if t.group % FOLDS != k]
        test = [i for i, t in enumerate(texts) if t.group % FOLDS == k]
        found[test] = Fitted(space, train, settings).best([texts[i] for i in test])
    return found


def thresholds(texts: Sequence[Text], scores: np.ndarray) -> tuple[float, float]:
    def ranked(kinds: tuple[str, ...], column: int) -> list[float]:
        return sorted(
            (float(s[column]) for t, s in zip(texts, scores, strict=True) if t.kind in kinds),
            reverse=True,
        )

    def above(values: list[float], share: float) -> float:
        allowed = int(share * len(values))
        return values[allowed] + 1e-4 if allowed < len(values) else 0.0

    # Both on every sentence's score, guarded or not: a guarded sentence is then only refused
    # less (chosen on the scores a refusal reads, the threshold fell with every rule guarded,
    # and refused more of the rules left unguarded: dev's facts 1 -> 4 left out).
    negatives = ("rule", "fact")
    refuse = max(
        above(ranked(negatives, 0), REFUSE_NEGATIVES),
        above(ranked(("public",), 0), REFUSE_PUBLIC),
        0.5,
    )
    hold = max(
        above(ranked(negatives, 0), HOLD_NEGATIVES), above(ranked(("public",), 0), HOLD_PUBLIC), 0.5
    )
    return round(refuse, 4), round(min(hold, refuse), 4)


def counts(
    texts: Sequence[Text], scores: np.ndarray, refuse: float, hold: float, kind: str
) -> tuple[int, int, int, int, int]:
    """texts, refused by the model, refused or held by it, refused by it or the patterns,
    refused or held by either."""
    picked = [(t, s) for t, s in zip(texts, scores, strict=True) if t.kind == kind]
    return (
        len(picked),
        sum(s[1] >= refuse for _, s in picked),
        sum(s[0] >= hold for _, s in picked),
        sum(t.pattern or s[1] >= refuse for t, s in picked),
        sum(t.pattern or s[0] >= hold for t, s in picked),
    )


HEAD = (
    "| left out | refuse / hold | orders: refused, or held (model) | with the patterns"
    " | rules: refused (model/with patterns), held | facts: refused (model/with patterns), held"
    " | public dev (oof) refused, held /1,000 | public held-out refused, held /1,000 |"
)


def row(
    name: str,
    labelled: Sequence[Text],
    scores: np.ndarray,
    *,
    dev: tuple[Sequence[Text], np.ndarray],
    heldout: tuple[Sequence[Text], np.ndarray] | None,
    refuse: float,
    hold: float,
) -> str:
    o = counts(labelled, scores, refuse, hold, "order")
    r = counts(labelled, scores, refuse, hold, "rule")
    f = counts(labelled, scores, refuse, hold, "fact")

    def public(pair: tuple[Sequence[Text], np.ndarray] | None) -> str:
        if pair is None:
            return "-"
        n, refused, held, either, _ = counts(pair[0], pair[1], refuse, hold, "public")
        per = 1000 / max(1, n)
        return (
            f"{n}: {refused * per:.2f} (+patterns {either * per:.2f}), {(held - refused) * per:.2f}"
        )

    def share(a: int) -> str:
        return f"{a} ({a / o[0]:.2f})"

    return (
        f"| {name} | {refuse} / {hold} | {o[0]}: {share(o[1])}, {share(o[2])}"
        f" | {share(o[3])}, {share(o[4])}"
        f" | {r[0]}: {r[1]}/{r[3]}, {r[4] - r[3]} | {f[0]}: {f[1]}/{f[3]}, {f[4] - f[3]}"
        f" | {public(dev)} | {public(heldout)} |"
    )


@dataclass(frozen=True)
class Left:
    """A labelled text scored by a model that did not see its set."""

    text: Text
    score: float
    refusable: float  # its best sentence's that is not guarded
    refuse: float
    hold: float

    @property
    def refused(self) -> bool:
        return self.text.pattern or self.refusable >= self.refuse

    @property
    def held(self) -> bool:
        return self.refused or self.score >= self.hold


def by_class(left: Sequence[Left]) -> list[str]:
    """Orders refused, and refused or held (with the patterns), by class and by language;
    rules and facts refused and held, by class."""
    groups: dict[str, list[Left]] = {}
    for x in left:
        kind, lang = x.text.label.split("/")
        key = f"{x.text.kind}: {kind}" if x.text.kind != "order" else kind
        for k in (key, f"{x.text.kind}s in {lang}", f"all {x.text.kind}s"):
            groups.setdefault(k, []).append(x)
    lines = ["| class | texts | refused | refused or held |", "|---|---|---|---|"]
    for key in sorted(groups, key=lambda k: (k.startswith("all"), " in " in k, k)):
        xs = groups[key]
        lines.append(
            f"| {key} | {len(xs)} | {sum(x.refused for x in xs)} | {sum(x.held for x in xs)} |"
        )
    return lines


def errors(left: Sequence[Left]) -> list[str]:
    """The orders missed and the rules and facts refused or held, when their set was left out."""
    out = []
    for x in left:
        wrong = not x.held if x.text.kind == "order" else x.held
        if wrong:
            what = "refused" if x.refused else "held" if x.held else "missed"
            out.append(
                f"{x.text.part}\t{x.text.label}\t{what}\t{x.score:.3f}"
                f"\t{'P' if x.text.pattern else '-'}\t{x.text.raw!r}"
            )
    return out


def by_set(
    space: Space, texts: Sequence[Text], settings: Settings, left: list[Left] | None = None
) -> list[str]:
    """For each labelled set: thresholds and weights from the rest, the set scored (each
    text with its score and thresholds into `left`)."""
    lines = []
    heldout = [t for t in texts if t.part == "public-heldout"]
    dev = [t for t in texts if t.part == "public-dev"]
    totals = np.zeros((3, 5), dtype=np.int64)  # orders, rules, facts: as `counts`
    for part in LABELLED:
        train = [t for t in texts if t.part not in (part, "public-heldout")]
        test = [t for t in texts if t.kind != "public" and t.part == part]
        oof = out_of_fold(space, train, settings)
        refuse, hold = thresholds(train, oof)
        fitted = Fitted(space, train, settings)
        dev_oof = np.array([s for t, s in zip(train, oof, strict=True) if t.kind == "public"])
        lines.append(
            row(
                part,
                test,
                fitted.best(test),
                dev=(dev, dev_oof),
                heldout=(heldout, fitted.best(heldout)),
                refuse=refuse,
                hold=hold,
            )
        )
        scores = fitted.best(test)
        for n, kind in enumerate(("order", "rule", "fact")):
            totals[n] += counts(test, scores, refuse, hold, kind)
        if left is not None:
            left += [
                Left(t, float(s[0]), float(s[1]), refuse, hold)
                for t, s in zip(test, scores, strict=True)
            ]
    o, r, f = (list(map(int, t)) for t in totals)
    lines.append(
        f"| all (sums) | | {o[0]}: {o[1]} ({o[1] / o[0]:.2f}), {o[2]} ({o[2] / o[0]:.2f})"
        f" | {o[3]} ({o[3] / o[0]:.2f}), {o[4]} ({o[4] / o[0]:.2f})"
        f" | {r[0]}: {r[1]}/{r[3]}, {r[4] - r[3]} | {f[0]}: {f[1]}/{f[3]}, {f[4] - f[3]} | | |"
    )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data")
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--cache", help="a file keeping the texts' features between runs")
    parser.add_argument(
        "--warnings", action="store_true", help="count the public atoms held, per part"
    )
    parser.add_argument("--families", default="".join(FAMILIES))
    parser.add_argument("--l2", type=float, default=L2)
    parser.add_argument("--min-count", type=int, default=MIN_COUNT)
    parser.add_argument("--negative-weight", type=float, default=LABELLED_NEGATIVE_WEIGHT)
    parser.add_argument("--errors", help="a file to list the by-set errors in")
    parser.add_argument("--no-by-set", action="store_true", help="the out-of-fold figures only")
    args = parser.parse_args(argv)
    base = data_dir(args.data)
    if args.warnings:
        warned: dict[str, list[int]] = {}
        for atom in public_atoms(base):
            cells = warned.setdefault(atom.split, [0, 0])
            cells[0] += 1
            cells[1] += bool(held_hits(atom.text))
        for split, (n, w) in sorted(warned.items()):
            print(f"public {split}: {n} atoms, held {w} ({1000 * w / n:.2f} per 1,000)")
        return 0
    settings = Settings(frozenset(args.families), args.min_count, args.l2, args.negative_weight)
    texts = load(base, Path(args.cache) if args.cache else None)
    space = Space(texts)
    print(
        f"settings: families {''.join(sorted(settings.families))}, min count"
        f" {settings.min_count}, L2 {settings.l2}, negative weight {settings.negative_weight}"
    )
    print(HEAD)
    print("|" + "---|" * 8)
    left: list[Left] = []
    if not args.no_by_set:
        for line in by_set(space, texts, settings, left):
            print(line, flush=True)
    every = [t for t in texts if t.part != "public-heldout"]
    oof = out_of_fold(space, every, settings)
    refuse, hold = thresholds(every, oof)
    dev = [t for t in texts if t.part == "public-dev"]
    dev_oof = np.array([s for t, s in zip(every, oof, strict=True) if t.kind == "public"])
    fitted = Fitted(space, every, settings)
    heldout = [t for t in texts if t.part == "public-heldout"]
    labelled = [t for t in every if t.kind != "public"]
    labelled_oof = np.array([s for t, s in zip(every, oof, strict=True) if t.kind != "public"])
    print(
        row(
            "none: all out-of-fold",
            labelled,
            labelled_oof,
            dev=(dev, dev_oof),
            heldout=(heldout, fitted.best(heldout)),
            refuse=refuse,
            hold=hold,
        )
    )
    if left:
        print("\nBy class, each set left out in turn (with the patterns):\n")
        print("\n".join(by_class(left)))
    if args.errors and left:
        Path(args.errors).write_text("\n".join(errors(left)) + "\n", encoding="utf-8")
    if args.write:
        made = fitted.model(refuse, hold)
        path = order_model.WEIGHTS
        path.write_text(
            json.dumps(made, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8"
        )
        print(f"wrote {path.relative_to(ROOT)}: {len(made['weights'])} weights")  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
