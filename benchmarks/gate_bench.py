"""Write gate and conflict audit: precision/recall on labelled sets, and hook timings.

    python benchmarks/gate_bench.py [--atoms 10000]

Labelled sets are the project's own (benchmarks/data/): gate_labels.jsonl (keep vs junk),
duplicate_pairs.jsonl (duplicate vs distinct; also used to calibrate the thresholds) and
conflict_pairs.jsonl (contradicts / extends / unrelated / duplicate). Timings: `memkit gate`
on 100 changed atoms in a repository of --atoms atoms, and `memkit audit` of the same
100 changed atoms as incoming (the goal names 50), each as a fresh process, side by side
with `python -c pass`.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from _common import PYTHON, ROOT, p50_p95, read_jsonl, side_by_side
from index_bench import synthetic

from memkit.audit.classify import CONTRADICTS, classify
from memkit.embedding import load_encoder
from memkit.gate.duplicates import DEFAULT_DUPLICATE, DEFAULT_NEAR
from memkit.gate.score import score_text

DATA = ROOT / "benchmarks" / "data"


def prf(tp: int, fp: int, fn: int) -> tuple[float, float]:
    return (tp / (tp + fp) if tp + fp else 1.0), (tp / (tp + fn) if tp + fn else 1.0)


def gate_quality() -> list[str]:
    out = [
        "| set | items | junk refused: precision | junk refused: recall | good kept |",
        "|---|---|---|---|---|",
    ]
    # gate_labels.jsonl was written with the rules; gate_heldout.jsonl after them, never tuned on.
    for name, file in (("gate", "gate_labels"), ("held-out", "gate_heldout")):
        out.extend(_gate_rows(name, read_jsonl(DATA / f"{file}.jsonl")))
    return out


def _gate_rows(name: str, rows: list[dict[str, Any]]) -> list[str]:
    out = []
    for lang in ("en", "zh"):
        sub = [r for r in rows if r["lang"] == lang]
        tp = sum(score_text(r["text"]).verdict == "fail" and r["label"] == "junk" for r in sub)
        fp = sum(score_text(r["text"]).verdict == "fail" and r["label"] == "keep" for r in sub)
        fn = sum(score_text(r["text"]).verdict != "fail" and r["label"] == "junk" for r in sub)
        kept = sum(r["label"] == "keep" for r in sub) - fp
        p, r = prf(tp, fp, fn)
        out.append(
            f"| {name} {lang} | {len(sub)} | {p:.2f} | {r:.2f} | "
            f"{kept}/{sum(x['label'] == 'keep' for x in sub)} |"
        )
    return out


def duplicate_quality() -> list[str]:
    rows = read_jsonl(DATA / "duplicate_pairs.jsonl")
    encoder = load_encoder()
    for r in rows:
        a, b = encoder.encode([r["a"], r["b"]])
        r["sim"] = float(a @ b)
    out = ["| threshold | role | precision | recall |", "|---|---|---|---|"]
    for t, role in ((DEFAULT_DUPLICATE, "fail (MK103)"), (DEFAULT_NEAR, "warn (MK104)")):
        tp = sum(r["sim"] >= t and r["label"] == "duplicate" for r in rows)
        fp = sum(r["sim"] >= t and r["label"] == "distinct" for r in rows)
        fn = sum(r["sim"] < t and r["label"] == "duplicate" for r in rows)
        p, rec = prf(tp, fp, fn)
        out.append(f"| {t:.2f} | {role} | {p:.2f} | {rec:.2f} |")
    dup = sorted(r["sim"] for r in rows if r["label"] == "duplicate")
    dis = sorted(r["sim"] for r in rows if r["label"] == "distinct")
    out.append("")
    out.append(
        f"Cosine of duplicate pairs: {dup[0]:.3f}–{dup[-1]:.3f} (median "
        f"{dup[len(dup) // 2]:.3f}); of distinct same-topic pairs: {dis[0]:.3f}–"
        f"{dis[-1]:.3f} (median {dis[len(dis) // 2]:.3f})."
    )
    return out


def conflict_quality() -> list[str]:
    out = ["| set | pairs | contradiction precision | contradiction recall |", "|---|---|---|---|"]
    for name, file in (("", "conflict_pairs"), ("held-out ", "conflict_heldout")):
        out.extend(_conflict_rows(name, read_jsonl(DATA / f"{file}.jsonl")))
    return out


def _conflict_rows(name: str, rows: list[dict[str, Any]]) -> list[str]:
    encoder = load_encoder()
    out = []
    for lang in ("en", "zh"):
        tp = fp = fn = 0
        sub = [r for r in rows if r["lang"] == lang]
        for r in sub:
            a, b = encoder.encode([r["a"], r["b"]])
            verdict = classify(r["a"], r["b"], similarity=float(a @ b))
            predicted = verdict.kind == CONTRADICTS
            actual = r["label"] == CONTRADICTS
            tp += predicted and actual
            fp += predicted and not actual
            fn += actual and not predicted
        p, rec = prf(tp, fp, fn)
        out.append(f"| {name}{lang} | {len(sub)} | {p:.2f} | {rec:.2f} |")
    return out


def timings(n: int, runs: int) -> list[str]:
    from _common import write_repo

    with tempfile.TemporaryDirectory(prefix="memkit-gate-bench-") as tmp:
        root = Path(tmp) / "repo"
        docs = synthetic(n)
        write_repo(root, docs)
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        subprocess.run(["git", "add", "-A"], cwd=root, check=True)
        subprocess.run(
            ["git", "-c", "user.email=b@x", "-c", "user.name=b", "commit", "-qm", "base"],
            cwd=root,
            check=True,
        )
        subprocess.run([PYTHON, "-m", "memkit", "index", "--quiet"], cwd=root, check=True)
        changed = sorted((root / "shared").glob("*.md"))[:100]
        for p in changed:
            p.write_text(
                p.read_text(encoding="utf-8") + "\n- One more concrete rule: "
                "always flush the cache every 30 s.\n",
                encoding="utf-8",
            )
        subprocess.run(
            ["git", "-c", "user.email=b@x", "-c", "user.name=b", "commit", "-qam", "change"],
            cwd=root,
            check=True,
        )
        files = [str(p.relative_to(root)) for p in changed]
        times = side_by_side(
            runs,
            {
                "python -c pass": [PYTHON, "-c", "pass"],
                "gate (100 changed)": [PYTHON, "-m", "memkit", "gate", *files],
                "audit (100 incoming)": [
                    PYTHON,
                    "-m",
                    "memkit",
                    "audit",
                    "--hook",
                    "--from",
                    "HEAD~1",
                    "--to",
                    "HEAD",
                ],
            },
            cwd=root,
        )
    base = p50_p95(times["python -c pass"])
    out = [
        f"| command ({n:,}-atom repo) | p50 | p95 |",
        "|---|---|---|",
        f"| python -c pass | {base[0]:.0f} ms | {base[1]:.0f} ms |",
    ]
    for name in ("gate (100 changed)", "audit (100 incoming)"):
        p50, p95 = p50_p95(times[name])
        out.append(f"| memkit {name} | {p50 / 1000:.2f} s | {p95 / 1000:.2f} s |")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--atoms", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for block in (
        gate_quality(),
        duplicate_quality(),
        conflict_quality(),
        timings(args.atoms, args.runs),
    ):
        print("\n".join(block))
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
