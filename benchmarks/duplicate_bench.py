"""The write gate's duplicate decision (MK103 refuse / MK104 warn) on labelled atom pairs.

    python benchmarks/duplicate_bench.py [--before DIR]

Each pair is judged the way `memkit gate` judges an atom and its close neighbour: the cosine
of their texts with the shipped model, then `memkit.checks.gate._match_findings` (the
contradiction check, the duplicate threshold, the long-text word rule and, since the
per-subject rule, the subject check). Sets (benchmarks/data/): subject_pairs.jsonl (dev: the
same template about another subject vs the same knowledge twice; the per-subject rule was
tuned on it), subject_heldout.jsonl (never tuned on), duplicate_pairs.jsonl and
conflict_pairs.jsonl / conflict_heldout.jsonl (texts only: each made an atom as `memkit add`
makes one without --title), and every pair of the atoms in paraphrase*.jsonl (none is a
duplicate of another).

`--before DIR` runs the same measure with the memkit package found in DIR (e.g. made by
`git archive <commit> memkit | tar -x -C DIR`) in a child process, and prints both side by
side: one run, one machine state.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from _common import ROOT, read_jsonl

DATA = ROOT / "benchmarks" / "data"


def _atom(fields: dict[str, Any], path: str) -> Any:
    from memkit.atom import Atom

    return Atom(
        path=path,
        id=fields["id"],
        type=fields.get("type", "procedure"),
        confidence="tentative",
        created="2026-11-25",
        status="active",
        scope="shared",
        title=fields["title"],
        body=f"# {fields['title']}\n\n{fields['body']}",  # as `memkit add` writes it
        triggers=tuple(fields.get("triggers", ())),
    )


def _from_text(text: str, n: int) -> dict[str, Any]:
    """An atom as `memkit add TEXT` makes it: the title is the first sentence."""
    from memkit.add import id_base

    try:
        from memkit.atom.title import title_of
    except ImportError:  # a memkit from before titles had their own module (--before)
        from memkit.add import title_of  # type: ignore[attr-defined]

    title = title_of(text)
    return {"id": f"{id_base(title, text, 'fact')}-{n}", "title": title, "body": text}


def verdict(a: dict[str, Any], b: dict[str, Any], encoder: Any) -> str:
    """What the gate says about atom `a` with `b` as its neighbour: MK103, MK104, MK105
    (left to the contradiction check) or none (not close enough to be a neighbour)."""
    from memkit.atom.text import atom_text
    from memkit.checks.gate import _match_findings
    from memkit.gate.duplicates import DuplicateSettings, Match

    atom, other = _atom(a, f"shared/{a['id']}.md"), _atom(b, f"shared/{b['id']}-b.md")
    va, vb = encoder.encode([atom_text(atom), atom_text(other)])
    similarity = float(va @ vb)
    settings = DuplicateSettings()
    if similarity < settings.near:
        return "none"
    # A pair has no memory around it: the neighbour is taken to stand out (issue 27 reads
    # "very close" against the memory's own spread; `benchmarks/claims_bench.py` measures it).
    try:
        match = Match(other.id, other.path, similarity, standing=float("inf"))
    except TypeError:  # a memkit from before the spread (--before)
        match = Match(other.id, other.path, similarity)
    found = _match_findings(atom, match, settings, other)
    if found:
        return found[0].code
    try:
        from memkit.audit.verdict import CONTRADICTS
        from memkit.audit.verdict import verdict as judge
    except ImportError:  # before issue 27 an empty answer was always the contradiction check's
        return "MK105"
    kind = judge(atom, other, similarity=similarity, duplicate_at=settings.duplicate).kind
    return "MK105" if kind == CONTRADICTS else "none"


def measure() -> dict[str, dict[str, int]]:
    """Counts per set row: `label verdict` -> pairs."""
    from memkit.embedding import load_encoder

    encoder = load_encoder()
    out: dict[str, Counter[str]] = {}
    for name in ("subject_pairs", "subject_heldout"):
        for r in read_jsonl(DATA / f"{name}.jsonl"):
            key = f"{name} {r['lang']}"
            out.setdefault(key, Counter())[f"{r['label']} {verdict(r['a'], r['b'], encoder)}"] += 1
    for name in ("duplicate_pairs", "conflict_pairs", "conflict_heldout"):
        for n, r in enumerate(read_jsonl(DATA / f"{name}.jsonl")):
            a, b = _from_text(r["a"], 2 * n), _from_text(r["b"], 2 * n + 1)
            key = f"{name} {r['lang']}"
            out.setdefault(key, Counter())[f"{r['label']} {verdict(a, b, encoder)}"] += 1
    for name in ("paraphrase", "paraphrase_heldout"):
        atoms = [
            {"id": r["id"], "title": r["title"], "body": r["text"]}
            for r in read_jsonl(DATA / f"{name}.jsonl")
            if r["kind"] == "atom"
        ]
        for a, b in itertools.combinations(atoms, 2):
            out.setdefault(f"{name} atoms", Counter())[f"distinct {verdict(a, b, encoder)}"] += 1
    return {k: dict(v) for k, v in out.items()}


def _row(counts: dict[str, int]) -> str:
    dup = sum(n for k, n in counts.items() if k.startswith("duplicate "))
    other = sum(counts.values()) - dup
    refused = counts.get("duplicate MK103", 0)
    wrongly = sum(n for k, n in counts.items() if k.endswith(" MK103") and "duplicate" not in k)
    warned = sum(n for k, n in counts.items() if k.endswith(" MK104") and "duplicate" not in k)
    contra = sum(n for k, n in counts.items() if k.endswith(" MK105") and "duplicate" not in k)
    return f"{refused}/{dup} | {wrongly}/{other} | {warned} | {contra}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", type=Path, help="a directory holding an older memkit")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.json:
        print(json.dumps(measure()))
        return 0
    import memkit

    after = measure()
    before: dict[str, dict[str, int]] | None = None
    if args.before is not None:
        env = {**os.environ, "PYTHONPATH": str(args.before.resolve())}
        command = [sys.executable, __file__, "--json"]
        child = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
        before = json.loads(child.stdout)
    print(f"after: {Path(memkit.__file__).parent}; before: {args.before or '-'}")
    print(
        "| set | before: duplicates refused (MK103) | before: others refused | before: others "
        "MK104 | before: others MK105 | after: duplicates refused | after: others refused | "
        "after: others MK104 | after: others MK105 |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for key, counts in after.items():
        old = _row(before[key]) if before is not None else "- | - | - | -"
        print(f"| {key} | {old} | {_row(counts)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
