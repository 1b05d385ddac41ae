"""The prompt-injection check (MK112): precision and recall on labelled atom texts.

    python benchmarks/injection_bench.py [--show-errors]

benchmarks/data/injection_labels.jsonl is the set the check was tuned on;
injection_heldout.jsonl was committed before the check was changed or measured on it, and
never tuned on. An item counts as flagged when `injection_hits` finds anything in it.
"""

from __future__ import annotations

import argparse

from _common import ROOT, count_labelled, labelled_cells, read_jsonl

from memkit.safety.injection import injection_hits

DATA = ROOT / "benchmarks" / "data"
SETS = (("tuned on", "injection_labels.jsonl"), ("held out", "injection_heldout.jsonl"))


def _flags(text: str) -> bool:
    return any(True for _ in injection_hits(text))


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
            cells = labelled_cells(*count_labelled(part, _flags, "injection", show))
            print(f"| {name} | {lang} | {len(part)} | {cells} |")


if __name__ == "__main__":
    main()
