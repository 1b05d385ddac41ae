"""Drift on real repositories: precision and recall of "stale" on the labelled set.

Each item of benchmarks/drift_set/{dev,heldout}.yaml is an atom written from a line of a
public repository at an old commit, labelled stale or holds at a later commit by reading the
repository there (the file says how). This checks every atom against its repository at the
later commit, with the history up to it, as `memkit drift` does, and counts: an atom is
predicted stale when one of its claims is gone or changed.

The repositories are read from mirrors (bare git directories), one per repository, named
`owner+name/repo` under --mirrors: the `fetch` tool of this workplace makes them
(`/work/.mirror`); anywhere else, `git clone --mirror https://github.com/OWNER/NAME
MIRRORS/OWNER+NAME/repo` does the same.

    python benchmarks/drift_bench.py --set dev [--mirrors /work/.mirror] [--show]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

from memkit.drift.check import HistoryPast
from memkit.drift.claims import claims_of
from memkit.drift.run import AtomClaims, check_atoms
from memkit.drift.say import describe
from memkit.drift.tree import History, Tree

HERE = Path(__file__).resolve().parent


def atom_text(item: dict[str, Any]) -> str:
    return (
        f"---\nid: {item['id']}\ntype: fact\nconfidence: observed\ncreated: 2020-01-01\n---\n"
        f"# {item['id']}\n\n- {item['text']}\n"
    )


def measure(items: list[dict[str, Any]], mirrors: Path, *, show: bool) -> dict[str, Any]:
    by_repo: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for item in items:
        by_repo[(item["repo"], item["new"])].append(item)
    predicted: dict[str, bool] = {}
    said: dict[str, list[str]] = {}
    seconds = 0.0
    with tempfile.TemporaryDirectory() as scratch:
        for (repo, new), group in sorted(by_repo.items()):
            gitdir = mirrors / repo.replace("/", "+") / "repo"
            if not gitdir.is_dir():
                sys.exit(f"no mirror of {repo} at {gitdir} (see the module's docstring)")
            started = time.perf_counter()
            tree = Tree.at(gitdir, new)
            past = HistoryPast(History(tree, Path(scratch) / f"{repo.replace('/', '+')}.json"))
            atoms = [
                AtomClaims(i["id"], f"shared/{i['id']}.md", tuple(claims_of(atom_text(i))))
                for i in group
            ]
            for drifted in check_atoms(atoms, tree, past):
                predicted[drifted.id] = bool(drifted.stale)
                said[drifted.id] = [f"{v.state}: {describe(v)}" for v in drifted.verdicts]
            seconds += time.perf_counter() - started
    tp = sum(1 for i in items if i["label"] == "stale" and predicted[i["id"]])
    fp = sum(1 for i in items if i["label"] == "holds" and predicted[i["id"]])
    fn = sum(1 for i in items if i["label"] == "stale" and not predicted[i["id"]])
    tn = sum(1 for i in items if i["label"] == "holds" and not predicted[i["id"]])
    for item in items:
        wrong = predicted[item["id"]] != (item["label"] == "stale")
        if show or wrong:
            mark = ("MISSED" if item["label"] == "stale" else "FALSE ALARM") if wrong else "ok"
            print(f"{mark:12} {item['id']} ({item['label']}): {item['text']}")
            for line in said[item["id"]]:
                print(f"{'':14}{line}")
    return {
        "items": len(items),
        "stale": tp + fn,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "precision": tp / (tp + fp) if tp + fp else 1.0,
        "recall": tp / (tp + fn) if tp + fn else 1.0,
        "seconds": seconds,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", choices=("dev", "heldout"), default="dev")
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument(
        "--show", action="store_true", help="every item's verdicts, not only the wrong"
    )
    args = parser.parse_args()
    items = yaml.safe_load((HERE / "drift_set" / f"{args.set}.yaml").read_text(encoding="utf-8"))
    result = measure(items, args.mirrors, show=args.show)
    print(
        f"\n{args.set}: {result['items']} atoms, {result['stale']} labelled stale; "
        f"TP {result['tp']} FP {result['fp']} FN {result['fn']} TN {result['tn']}; "
        f"precision {result['precision']:.3f} recall {result['recall']:.3f}; "
        f"checked in {result['seconds']:.2f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
