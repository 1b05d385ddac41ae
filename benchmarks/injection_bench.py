"""The prompt-injection check (MK112): precision and recall on labelled atom texts.

    python benchmarks/injection_bench.py [--show-errors]

benchmarks/data/injection_labels.jsonl is the set the check was tuned on;
injection_heldout.jsonl was committed before the check was changed or measured on it, and
never tuned on. An item counts as flagged when `injection_hits` finds anything in it.
"""

from __future__ import annotations

import argparse
from typing import Any

from _common import ROOT, read_jsonl

from memkit.gate.injection import injection_hits

DATA = ROOT / "benchmarks" / "data"
SETS = (("tuned on", "injection_labels.jsonl"), ("held out", "injection_heldout.jsonl"))


def measure(rows: list[dict[str, Any]], show: bool) -> tuple[int, int, int, int]:
    tp = fp = fn = tn = 0
    for row in rows:
        flagged = any(True for _ in injection_hits(row["text"]))
        attack = row["label"] == "injection"
        tp += flagged and attack
        fp += flagged and not attack
        fn += attack and not flagged
        tn += not attack and not flagged
        if show and flagged != attack:
            print(f"  {'missed' if attack else 'false alarm'}: {row['text'][:90]!r}")
    return tp, fp, fn, tn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--show-errors", action="store_true", help="tuning set only")
    args = parser.parse_args()
    print("| set | lang | items | precision | recall | false alarms |")
    print("|---|---|---|---|---|---|")
    for name, file in SETS:
        rows = read_jsonl(DATA / file)
        for lang in ("en", "zh", "all"):
            part = [r for r in rows if lang in ("all", r["lang"])]
            # Errors of the tuning set only: the held-out set's are not looked at.
            show = args.show_errors and lang == "all" and name == "tuned on"
            tp, fp, fn, tn = measure(part, show)
            precision = tp / (tp + fp) if tp + fp else 1.0
            recall = tp / (tp + fn) if tp + fn else 1.0
            print(
                f"| {name} | {lang} | {len(part)} | {precision:.2f} ({tp}/{tp + fp}) "
                f"| {recall:.2f} ({tp}/{tp + fn}) | {fp} of {fp + tn} benign |"
            )


if __name__ == "__main__":
    main()
