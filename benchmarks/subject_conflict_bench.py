"""The contradiction decision between two whole atoms (title, id, triggers, body), as the
write check (MK105/MK106) and the pull audit make it, side by side with another memkit tree.

    python benchmarks/subject_conflict_bench.py [--before SRC] [--kinds]

For each pair: the cosine of the two atoms' texts with the shipped model, then the audit's
verdict for an atom and its candidate (`memkit.audit.subject.atom_verdict`: `classify`, and
the per-subject value rule; a tree without that rule, e.g. `--before` main, runs `classify`
alone). Sets (benchmarks/data/): subject_values.jsonl (dev: the per-subject value rule was
tuned on it) and subject_values_heldout.jsonl (never tuned on); subject_pairs.jsonl and
subject_heldout.jsonl (per-subject atoms and duplicates: no contradiction among them); and
the text sets of classify_bench (frame, conflict, imperative), each text made an atom as
`memkit add TEXT` makes one (a title taken from the text names no subject, so the rule
leaves them as `classify` finds them: a check that it does).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict
from typing import Any

from _common import ROOT, read_jsonl
from classify_bench import _cell
from duplicate_bench import _atom, _from_text

DATA = ROOT / "benchmarks" / "data"
ATOM_SETS = ("subject_values", "subject_values_heldout", "subject_pairs", "subject_heldout")
TEXT_SETS = (
    "frame_pairs",
    "frame_heldout",
    "conflict_pairs",
    "conflict_heldout",
    "imperative_pairs",
    "imperative_heldout",
)
Counts = dict[str, list[int]]  # "set/lang[/kind]" -> [tp, positives, fp, negatives]


def _verdict(a: Any, b: Any, similarity: float) -> str:
    from memkit.audit.candidates import AuditSettings
    from memkit.audit.classify import classify
    from memkit.audit.text import statement_text

    settings = AuditSettings()
    kwargs: dict[str, Any] = {
        "similarity": similarity,
        "duplicate_at": settings.duplicate,
        "related_at": settings.candidate_similarity,
        "shared_triggers": len({t.lower() for t in a.triggers} & {t.lower() for t in b.triggers}),
    }
    ta, tb = statement_text(a.title, a.body), statement_text(b.title, b.body)
    try:
        from memkit.audit.subject import atom_verdict
    except ImportError:  # a memkit from before the per-subject value rule (--before)
        return classify(ta, tb, **kwargs).kind
    return atom_verdict(a, b, ta, tb, **kwargs).kind


def measure() -> Counts:
    from memkit.atom.text import atom_text
    from memkit.embedding import load_encoder

    encoder = load_encoder()
    counts: Counts = defaultdict(lambda: [0, 0, 0, 0])
    rows = [
        (name, r, r["a"], r["b"]) for name in ATOM_SETS for r in read_jsonl(DATA / f"{name}.jsonl")
    ]
    for name in TEXT_SETS:
        for n, r in enumerate(read_jsonl(DATA / f"{name}.jsonl")):
            rows.append((name, r, _from_text(r["a"], 2 * n), _from_text(r["b"], 2 * n + 1)))
    for name, r, fa, fb in rows:
        a, b = _atom(fa, f"shared/{fa['id']}.md"), _atom(fb, f"shared/{fb['id']}-b.md")
        va, vb = encoder.encode([atom_text(a), atom_text(b)])
        hit = _verdict(a, b, float(va @ vb)) == "contradicts"
        actual = r["label"] == "contradicts"
        for key in (f"{name}/{r['lang']}", f"{name}/{r['lang']}/{r.get('kind', '')}"):
            cell = counts[key]
            cell[0 if actual else 2] += hit
            cell[1 if actual else 3] += 1
    return dict(counts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", help="another memkit source tree to compare with")
    parser.add_argument("--kinds", action="store_true")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    after = measure()
    if args.json:
        print(json.dumps(after))
        return 0
    before: Counts = {}
    if args.before:
        env = {**os.environ, "PYTHONPATH": args.before}
        argv = [sys.executable, __file__, "--json"]
        out = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
        before = json.loads(out.stdout)
    print(
        "| set | lang | recall before | recall after | false alarms before | false alarms after |"
    )
    print("|---|---|---|---|---|---|")
    order = [*ATOM_SETS, *TEXT_SETS]
    for key in sorted(after, key=lambda k: (order.index(k.split("/")[0]), k)):
        parts = key.split("/")
        if len(parts) == 3 and not (args.kinds and parts[2]):
            continue
        print(
            f"| {parts[0]} | {' / '.join(parts[1:])} | {_cell(before.get(key), True)} "
            f"| {_cell(after[key], True)} | {_cell(before.get(key), False)} "
            f"| {_cell(after[key], False)} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
