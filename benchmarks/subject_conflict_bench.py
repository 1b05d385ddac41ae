"""The contradiction decision between two whole atoms (title, id, triggers, body), as the
write check (MK105/MK106) and the pull audit make it, side by side with another memkit tree.

    python benchmarks/subject_conflict_bench.py [--before SRC] [--kinds] [--sets NAME…]

For each pair: the cosine of the two atoms' texts with the shipped model, then the audit's
verdict for an atom and its candidate (`memkit.audit.verdict.verdict`; before issue 27
`memkit.audit.subject.atom_verdict`: `classify`, and the per-subject value rule; a tree without
that rule runs `classify` alone). Sets (benchmarks/data/): subject_values.jsonl (dev: the per-
subject value rule was tuned on it) and subject_values_heldout.jsonl (never tuned on);
subject_capitals.jsonl (dev) and subject_capitals_heldout.jsonl (never tuned on): the subject
capitalised mid-sentence or as the sentence head ("In Staging, …", "The French translation …");
subject_pairs.jsonl and subject_heldout.jsonl (per-subject atoms and duplicates: no
contradiction among them); and the text sets of classify_bench (frame, conflict, imperative),
each text made an atom as `memkit add TEXT` makes one (a title taken from the text names no
subject, so the rule leaves them as `classify` finds them: a check that it does).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from _common import ROOT, read_jsonl
from classify_bench import Counts, run
from duplicate_bench import _atom, _from_text

DATA = ROOT / "benchmarks" / "data"
ATOM_SETS = (
    "subject_values",
    "subject_values_heldout",
    "subject_capitals",
    "subject_capitals_heldout",
    "subject_pairs",
    "subject_heldout",
)
TEXT_SETS = (
    "frame_pairs",
    "frame_heldout",
    "conflict_pairs",
    "conflict_heldout",
    "imperative_pairs",
    "imperative_heldout",
)


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
        from memkit.audit.verdict import verdict
    except ImportError:  # a memkit from before the one verdict (issue 27, --before)
        try:
            from memkit.audit.subject import atom_verdict  # type: ignore[attr-defined]
        except ImportError:  # a memkit from before the per-subject value rule
            return classify(ta, tb, **kwargs).kind
        return str(atom_verdict(a, b, ta, tb, **kwargs).kind)
    return verdict(a, b, **kwargs).kind


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
    return run(__file__, __doc__, measure, [*ATOM_SETS, *TEXT_SETS])


if __name__ == "__main__":
    raise SystemExit(main())
