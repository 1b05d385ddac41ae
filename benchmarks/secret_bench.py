"""The secret check (MK110): precision and recall on labelled atom texts.

    python benchmarks/secret_bench.py [--show-errors]

benchmarks/data/secret_shapes.jsonl is the set the check was tuned on (issue 28: keys and
passwords named without a colon, Bearer headers, and benign text that looks like them);
secret_shapes_heldout.jsonl was committed before the check was changed or measured on it,
and never tuned on. An item counts as flagged when `find_secrets` finds anything in it.
"""

from __future__ import annotations

import argparse

from _common import ROOT, read_jsonl

from memkit.gate.secrets import find_secrets

DATA = ROOT / "benchmarks" / "data"
SETS = (("tuned on", "secret_shapes.jsonl"), ("held out", "secret_shapes_heldout.jsonl"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--show-errors", action="store_true", help="tuning set only")
    args = parser.parse_args()
    print("| set | items | precision | recall | false alarms |")
    print("|---|---|---|---|---|")
    for name, file in SETS:
        tp = fp = fn = tn = 0
        for row in read_jsonl(DATA / file):
            flagged = next(find_secrets(row["text"]), None) is not None
            secret = row["label"] == "secret"
            tp, fp = tp + (flagged and secret), fp + (flagged and not secret)
            fn, tn = fn + (secret and not flagged), tn + (not secret and not flagged)
            # Errors of the tuning set only: the held-out set's are not looked at.
            if args.show_errors and name == "tuned on" and flagged != secret:
                print(f"  {'missed' if secret else 'false alarm'}: {row['text'][:90]!r}")
        precision = tp / (tp + fp) if tp + fp else 1.0
        recall = tp / (tp + fn) if tp + fn else 1.0
        print(
            f"| {name} | {tp + fp + fn + tn} | {precision:.2f} ({tp}/{tp + fp}) "
            f"| {recall:.2f} ({tp}/{tp + fn}) | {fp} of {fp + tn} benign |"
        )


if __name__ == "__main__":
    main()
