"""The contradiction classifier on every labelled pair set, side by side with another memkit
source tree (contradictions in imperative procedures).

    python benchmarks/classify_bench.py [--before SRC] [--kinds]

For each set and language: recall (labelled contradictions judged `contradicts`) and false
alarms (other pairs judged `contradicts`), with this tree's one verdict on two texts
(`memkit.audit.verdict.verdict`, which every caller uses) and, with
`--before SRC`, with the one in SRC (e.g. `git archive main memkit | tar -x -C /tmp/before`),
run in a process of its own with `PYTHONPATH=SRC`. Both use the same embedding model for the
pair's cosine. `--kinds` adds recall or false alarms per labelled kind.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from _common import ROOT, read_jsonl

DATA = ROOT / "benchmarks" / "data"
SETS = (
    ("migration_pairs", "dev: the migration rule was tuned on it"),
    ("migration_heldout", "held out"),
    ("imperative_pairs", "dev: the imperative rule was tuned on it"),
    ("imperative_heldout", "held out"),
    ("frame_pairs", "issue 14 dev"),
    ("frame_heldout", "issue 14 held out"),
    ("conflict_pairs", "issue 7 dev"),
    ("conflict_heldout", "issue 7 held out"),
)
Counts = dict[str, list[int]]  # "set/lang[/kind]" -> [tp, positives, fp, negatives]


def measure() -> Counts:
    from memkit.audit.classify import CONTRADICTS
    from memkit.embedding import load_encoder

    judge: Callable[..., Any]
    try:
        from memkit.audit.verdict import verdict as judge
    except ImportError:  # a tree from before the one verdict (issue 27)
        from memkit.audit.classify import classify as judge

    encoder = load_encoder()
    counts: Counts = defaultdict(lambda: [0, 0, 0, 0])
    for name, _ in SETS:
        for r in read_jsonl(DATA / f"{name}.jsonl"):
            a, b = encoder.encode([r["a"], r["b"]])
            hit = judge(r["a"], r["b"], similarity=float(a @ b)).kind == CONTRADICTS
            actual = r["label"] == CONTRADICTS
            for key in (f"{name}/{r['lang']}", f"{name}/{r['lang']}/{r.get('kind', '')}"):
                cell = counts[key]
                if actual:
                    cell[0] += hit
                    cell[1] += 1
                else:
                    cell[2] += hit
                    cell[3] += 1
    return dict(counts)


def _cell(c: list[int] | None, positive: bool) -> str:
    if not c:
        return "–"
    found, n = (c[0], c[1]) if positive else (c[2], c[3])
    return f"{found}/{n}" if n else "–"


def main() -> int:
    return run(__file__, __doc__, measure, [n for n, _ in SETS])


def run(script: str, doc: str | None, measure: Callable[[], Counts], order: list[str]) -> int:
    """The command line of a recall / false-alarm bench: `measure` in this process, and with
    `--before SRC` the same `script` in a process that imports memkit from SRC."""
    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument("--before", help="another memkit source tree to compare with")
    parser.add_argument("--kinds", action="store_true")
    parser.add_argument("--sets", nargs="*", help="only these sets (file names without .jsonl)")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    after = measure()
    if args.json:
        print(json.dumps(after))
        return 0
    before: Counts = {}
    if args.before:
        env = {**os.environ, "PYTHONPATH": args.before}
        argv = [sys.executable, script, "--json"]
        out = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
        before = json.loads(out.stdout)
    print(
        "| set | lang | recall before | recall after | false alarms before | false alarms after |"
    )
    print("|---|---|---|---|---|---|")
    for key in sorted(after, key=lambda k: (order.index(k.split("/")[0]), k)):
        parts = key.split("/")
        if (len(parts) == 3 and not (args.kinds and parts[2])) or (
            args.sets and parts[0] not in args.sets
        ):
            continue
        label = " / ".join(parts[1:])
        print(
            f"| {parts[0]} | {label} | {_cell(before.get(key), True)} | {_cell(after[key], True)} "
            f"| {_cell(before.get(key), False)} | {_cell(after[key], False)} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
