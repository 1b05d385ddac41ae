"""The secret check (MK110): precision and recall on labelled atom texts.

    python benchmarks/secret_bench.py [--show-errors]

benchmarks/data/secret_shapes.jsonl is the set the check was tuned on (issue 28: keys and
passwords named without a colon, Bearer headers, and benign text that looks like them);
secret_shapes_heldout.jsonl was committed before the check was changed or measured on it,
and never tuned on. An item counts as flagged when `find_secrets` finds anything in it.
"""

from __future__ import annotations

import argparse

from _common import ROOT, count_labelled, labelled_cells, read_jsonl

from memkit.safety.secrets import find_secrets

DATA = ROOT / "benchmarks" / "data"
SETS = (("tuned on", "secret_shapes.jsonl"), ("held out", "secret_shapes_heldout.jsonl"))


def _flags(text: str) -> bool:
    return next(find_secrets(text), None) is not None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--show-errors", action="store_true", help="tuning set only")
    args = parser.parse_args()
    print("| set | items | precision | recall | false alarms |")
    print("|---|---|---|---|---|")
    for name, file in SETS:
        rows = read_jsonl(DATA / file)
        # Errors of the tuning set only: the held-out set's are not looked at.
        show = args.show_errors and name == "tuned on"
        tp, fp, fn, tn = count_labelled(rows, _flags, "secret", show)
        print(f"| {name} | {tp + fp + fn + tn} | {labelled_cells(tp, fp, fn, tn)} |")


if __name__ == "__main__":
    main()
