"""Does the code say which of two lines is newer? (issue 38, docs/audit.md)

For each pair of an instruction-pairs split whose two lines come from one repository, the
claims `memkit drift` reads in each line (paths, commands, config values, versions) are checked
against the repository at the newer line's commit: is a claim only the older line makes gone
or changed there, is a claim only the newer line makes confirmed? If updates had the first and
other pairs not, the gate could read direction from the code. The repositories are read from
mirrors (bare git directories `<mirrors>/<owner>+<name>/repo`, as the `fetch` tool leaves
them); rows without one are counted, not guessed.

    python benchmarks/drift_signal_bench.py --split dev,heldout3,heldout4 [--mirrors DIR]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from memkit.drift.check import CONFIRMED, Look, Past, Verdict, check
from memkit.drift.claims import claims_of
from memkit.drift.tree import Tree

DATA = Path(__file__).resolve().parent / "data"


class _NoPast(Past):
    """Only what the tree holds at the commit: no history is read."""

    def gone(self, claim: Any, look: Look, tree: Tree) -> Verdict | None:
        return None

    def changed(self, claim: Any, look: Look, tree: Tree) -> Verdict | None:
        return None


def signal(row: dict[str, Any], tree: Tree) -> str:
    old, new = claims_of(row["old"]["text"]), claims_of(row["new"]["text"])
    bare_old, bare_new = {c.bare for c in old}, {c.bare for c in new}
    judged_old = check(old, tree, _NoPast())
    judged_new = check(new, tree, _NoPast())
    stale = any(v.stale and c.bare not in bare_new for c, v in judged_old.items())
    confirmed = any(v.state == CONFIRMED and c.bare not in bare_old for c, v in judged_new.items())
    if stale and confirmed:
        return "old gone, new confirmed"
    return "old gone" if stale else "new confirmed" if confirmed else "neither"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--split", default="dev,heldout3,heldout4")
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    args = parser.parse_args()
    counts: Counter[tuple[str, str]] = Counter()
    trees: dict[tuple[Path, str], Tree] = {}
    for split in args.split.split(","):
        for line in (DATA / f"instruction_pairs_{split}.jsonl").read_text("utf-8").splitlines():
            row = json.loads(line)
            if row["old"]["repo"] != row["new"]["repo"]:
                continue
            mirror = args.mirrors / row["new"]["repo"].replace("/", "+") / "repo"
            if not mirror.is_dir():
                counts[(row["label"], "no mirror")] += 1
                continue
            key = (mirror, row["new"]["commit"])
            if key not in trees:
                trees[key] = Tree.at(mirror, row["new"]["commit"])
            counts[(row["label"], signal(row, trees[key]))] += 1
    print(f"splits: {args.split}; mirrors: {args.mirrors}")
    for label in sorted({label for label, _ in counts}):
        cells = ", ".join(f"{s} {n}" for (lab, s), n in sorted(counts.items()) if lab == label)
        print(f"{label}: {cells}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
