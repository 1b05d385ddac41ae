"""Contradictions as teams write them (issue 14): the classifier on labelled pairs, and 100
incoming atoms pulled into repositories of generated facts.

    python benchmarks/audit_bench.py [--set heldout|dev] [--sizes 1000 10000] [--runs 3]
                                     [--before SRC] [--all-atoms 10000]

- pairs: precision and recall per kind on `frame_pairs.jsonl` (development: the rules were
  written and tuned on it) and `frame_heldout.jsonl` (committed before any measurement on it).
- pull: the repository holds the first halves of the chosen set's pairs plus generated facts
  about people and projects (`facts.py`) up to N atoms; the second halves arrive as 100
  incoming atoms in one commit; `memkit audit --from HEAD~1 --to HEAD` runs as a fresh
  process (after `memkit index`, as post-merge does), side by side with `python -c pass`.
  Recall: labelled contradictions reported; false alarms: contradictions reported with a
  generated fact or for a pair labelled compatible, per incoming atom. With `--before SRC`, the
  same command also runs from another memkit source tree (e.g. a checkout of main).
- sources: the same pull, in process, with one candidate source at a time.
- all: `memkit audit --all` over N generated facts (thousands share a trigger): time, peak
  memory of the process, report size.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, TypedDict

from _common import PYTHON, ROOT, p50_p95, read_jsonl, side_by_side
from facts import facts

from memkit.audit.candidates import AuditSettings
from memkit.audit.classify import CONTRADICTS, classify
from memkit.embedding import load_encoder

DATA = ROOT / "benchmarks" / "data"
SETS = {"dev": "frame_pairs.jsonl", "heldout": "frame_heldout.jsonl"}
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]


def predicted_kind(reason: str) -> str:
    m = re.match(r"different (person|team|tool|place|date|number|version|name|path) in", reason)
    if m:
        return m.group(1)
    for prefix, kind in (
        ("opposite instructions", "polarity"),
        ("different values", "number"),
        ("different versions", "version"),
        ("different paths", "path"),
        ("the same statement", "negation"),
    ):
        if reason.startswith(prefix):
            return kind
    return "other"


def pair_quality(name: str) -> list[str]:
    rows = read_jsonl(DATA / SETS[name])
    encoder = load_encoder()
    recall: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    alarms: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    by_predicted: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    totals: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows:
        a, b = encoder.encode([r["a"], r["b"]])
        verdict = classify(r["a"], r["b"], similarity=float(a @ b))
        hit = verdict.kind == CONTRADICTS
        actual = r["label"] == CONTRADICTS
        lang = r["lang"]
        if actual:
            recall[(lang, r["kind"])][0] += hit
            recall[(lang, r["kind"])][1] += 1
        else:
            alarms[(lang, r["kind"])][0] += hit
            alarms[(lang, r["kind"])][1] += 1
        if hit:
            by_predicted[(lang, predicted_kind(verdict.reason))][0] += actual
            by_predicted[(lang, predicted_kind(verdict.reason))][1] += 1
        totals[lang]["tp"] += hit and actual
        totals[lang]["fp"] += hit and not actual
        totals[lang]["fn"] += actual and not hit
    out = [
        f"### {name} set ({SETS[name]}, {len(rows)} pairs)",
        "",
        "| language | precision | recall | contradictions found | false alarms |",
        "|---|---|---|---|---|",
    ]
    for lang in ("en", "zh"):
        t = totals[lang]
        p = t["tp"] / (t["tp"] + t["fp"]) if t["tp"] + t["fp"] else 1.0
        rec = t["tp"] / (t["tp"] + t["fn"]) if t["tp"] + t["fn"] else 1.0
        n_neg = sum(v[1] for k, v in alarms.items() if k[0] == lang)
        n_pos = sum(v[1] for k, v in recall.items() if k[0] == lang)
        out.append(f"| {lang} | {p:.2f} | {rec:.2f} | {t['tp']}/{n_pos} | {t['fp']}/{n_neg} |")
    out += ["", "| labelled kind | en recall | zh recall |", "|---|---|---|"]
    for kind in sorted({k for _, k in recall}):
        cells = [_ratio(recall.get((lang, kind))) for lang in ("en", "zh")]
        out.append(f"| {kind} | {cells[0]} | {cells[1]} |")
    out += ["", "| compatible kind | en false alarms | zh false alarms |", "|---|---|---|"]
    for kind in sorted({k for _, k in alarms}):
        cells = [_ratio(alarms.get((lang, kind))) for lang in ("en", "zh")]
        out.append(f"| {kind} | {cells[0]} | {cells[1]} |")
    out += ["", "| predicted kind | en precision | zh precision |", "|---|---|---|"]
    for kind in sorted({k for _, k in by_predicted}):
        cells = [_ratio(by_predicted.get((lang, kind))) for lang in ("en", "zh")]
        out.append(f"| {kind} | {cells[0]} | {cells[1]} |")
    return out


def _ratio(value: list[int] | None) -> str:
    if not value or not value[1]:
        return "–"
    return f"{value[0] / value[1]:.2f} ({value[0]}/{value[1]})"


def _atom(atom_id: str, text: str, triggers: list[str]) -> str:
    trig = f"triggers: {json.dumps(triggers, ensure_ascii=False)}\n" if triggers else ""
    return (
        f"---\nid: {atom_id}\ntype: fact\nconfidence: observed\ncreated: 2026-01-01\n{trig}"
        f"---\n# {text}\n\n- {text}\n"
    )


def build_pull(root: Path, n: int, pairs: list[dict[str, Any]]) -> dict[str, str]:
    """The repository before the pull, committed and indexed, and the pull's commit.
    Returns the expected partner (a-side id) of each incoming atom labelled a contradiction."""
    shared = root / "shared"
    shared.mkdir(parents=True)
    (root / "memkit.yaml").write_text("version: 1\n", encoding="utf-8")
    a_ids: dict[str, str] = {}
    for text in dict.fromkeys(r["a"] for r in pairs):
        a_ids[text] = f"a-{len(a_ids):03d}"
        (shared / f"{a_ids[text]}.md").write_text(_atom(a_ids[text], text, []), "utf-8")
    avoid = " ".join(r["a"] + r["b"] for r in pairs)
    for i, (_, text, triggers) in enumerate(facts(n - len(a_ids), avoid=avoid)):
        # Thousands of facts share the trigger "team": the case that made audits quadratic.
        tags = [*triggers, "team"] if i % 2 else triggers
        (shared / f"f-{i:05d}.md").write_text(_atom(f"f-{i:05d}", text, tags), "utf-8")
    subprocess.run([*GIT, "init", "-q"], cwd=root, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "before"], cwd=root, check=True)
    subprocess.run([PYTHON, "-m", "memkit", "index", "--quiet"], cwd=root, check=True)
    expected = {}
    for r in pairs:
        b_id = f"b-{r['id']}"
        (shared / f"{b_id}.md").write_text(_atom(b_id, r["b"], []), "utf-8")
        if r["label"] == CONTRADICTS:
            expected[b_id] = a_ids[r["a"]]
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    # `--all` pulls nothing: its commit is empty, yet HEAD~1 must exist.
    subprocess.run([*GIT, "commit", "-qm", "pull", "--allow-empty"], cwd=root, check=True)
    subprocess.run([PYTHON, "-m", "memkit", "index", "--quiet"], cwd=root, check=True)
    return expected


class Score(TypedDict):
    recall: float
    alarms: float  # per incoming atom
    cross: float  # per incoming atom
    tp: int
    n: int
    alarm_pairs: list[tuple[str, str]]  # (incoming, other)


def score(results: list[dict[str, Any]], expected: dict[str, str], incoming: int) -> Score:
    """Recall of the labelled contradictions; false alarms (a contradiction reported with a
    generated fact, or for an incoming atom labelled compatible) per incoming atom; and other
    pairs within the labelled set (they may be real: reported apart)."""
    found = {
        (r["incoming"], r["other"])
        for r in results
        if r["kind"] == CONTRADICTS and r["incoming"].startswith("b-")
    }
    tp = sum((b, a) in found for b, a in expected.items())
    alarms = sorted(
        (b, x)
        for b, x in found
        if expected.get(b) != x and (x.startswith("f-") or b not in expected)
    )
    cross = [p for p in found if expected.get(p[0]) != p[1] and p not in alarms]
    return {
        "recall": tp / len(expected),
        "alarms": len(alarms) / incoming,
        "cross": len(cross) / incoming,
        "tp": tp,
        "n": len(expected),
        "alarm_pairs": alarms,
    }


def pull(n: int, name: str, runs: int, before: str | None) -> list[str]:
    pairs = read_jsonl(DATA / SETS[name])
    if len(pairs) > 100:
        pairs = [p for i, p in enumerate(pairs) if i % (len(pairs) / 100) < 1][:100]
    out: list[str] = []
    # A refresh the hooks started may still be writing .memkit/ as the folder goes.
    scratch = tempfile.TemporaryDirectory(prefix="memkit-audit-bench-", ignore_cleanup_errors=True)
    with scratch as tmp:
        root = Path(tmp) / "repo"
        expected = build_pull(root, n, pairs)
        argv = [PYTHON, "-m", "memkit", "audit", "--from", "HEAD~1", "--to", "HEAD", "--json"]
        commands = {"python -c pass": [PYTHON, "-c", "pass"], "memkit audit": argv}
        if before:
            commands["memkit audit (before)"] = ["env", f"PYTHONPATH={before}", *argv]
        times = side_by_side(runs, commands, cwd=root)
        rows = []
        for label, cmd in commands.items():
            if label == "python -c pass":
                continue
            result = subprocess.run(cmd, cwd=root, capture_output=True, text=True, check=False)
            data = json.loads(result.stdout)
            s = score(data["results"], expected, len(pairs))
            p50, p95 = p50_p95(times[label])
            rows.append(
                f"| {label} | {n:,} | {s['recall']:.2f} ({s['tp']}/{s['n']}) | "
                f"{s['alarms']:.2f} | {s['cross']:.2f} | {p50 / 1000:.2f} s | {p95 / 1000:.2f} s |"
            )
            for pair in s["alarm_pairs"][:10]:
                print(f"  false alarm ({label}, {n}): {pair}")
        base = p50_p95(times["python -c pass"])
        out += rows
        out.append(
            f"| python -c pass | {n:,} | | | | {base[0] / 1000:.2f} s | {base[1] / 1000:.2f} s |"
        )
        out += sources(root, expected, len(pairs), n)
    return out


def sources(root: Path, expected: dict[str, str], incoming: int, n: int) -> list[str]:
    from memkit.audit.run import audit
    from memkit.config import load_config

    config = load_config(root)
    paths = [f"shared/{p.name}" for p in sorted((root / "shared").glob("b-*.md"))]
    out = []
    variants = {
        "vector ≥ 0.75 only (the old candidates, without triggers)": AuditSettings(
            candidate_similarity=0.75, neighbours=5, sources=("vector",)
        ),
        "vector ≥ 0.60 only": AuditSettings(sources=("vector",)),
        "bm25 only": AuditSettings(sources=("bm25",)),
        "trigger only": AuditSettings(sources=("trigger",)),
        "vector + trigger": AuditSettings(sources=("vector", "trigger")),
        "all three": AuditSettings(),
    }
    for label, settings in variants.items():
        start = time.perf_counter()
        results = audit(root, paths, config, settings=settings)
        took = time.perf_counter() - start
        s = score([r.__dict__ for r in results], expected, incoming)
        out.append(
            f"| sources: {label} | {n:,} | {s['recall']:.2f} ({s['tp']}/{s['n']}) | "
            f"{s['alarms']:.2f} | {s['cross']:.2f} | {took:.2f} s (in process) | |"
        )
    return out


def audit_all(n: int) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="memkit-audit-all-", ignore_cleanup_errors=True) as tmp:
        root = Path(tmp) / "repo"
        build_pull(root, n, [])
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        start = time.perf_counter()
        result = subprocess.run(
            [PYTHON, "-m", "memkit", "audit", "--all"],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
        took = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        report = (root / ".memkit/audit/last.json").stat().st_size
        sharing = sum(1 for p in (root / "shared").glob("f-*.md") if "team" in p.read_text())
        head = result.stdout.splitlines()[0] if result.stdout else result.stderr[-300:]
        return [
            f"`memkit audit --all`, {n:,} atoms ({sharing:,} share the trigger `team`): "
            f"{took:.1f} s, peak RSS {max(peak, before) / 1024:.0f} MB, report "
            f"{report / 1024:.0f} KB; {head}"
        ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--set", choices=tuple(SETS), default="heldout")
    parser.add_argument("--sizes", type=int, nargs="*", default=[1_000, 10_000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--before", help="another memkit source tree to time side by side")
    parser.add_argument("--all-atoms", type=int, default=10_000)
    parser.add_argument("--skip-pairs", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("MEMKIT_NO_ENGINE", "1")
    if not args.skip_pairs:
        for name in ("dev", "heldout"):
            print("\n".join(pair_quality(name)), end="\n\n")
    print(
        "| pull of 100 atoms | repo | recall | false alarms / incoming | other pairs of the set"
        " / incoming | p50 | p95 |"
    )
    print("|---|---|---|---|---|---|---|")
    for n in args.sizes:
        print("\n".join(pull(n, args.set, args.runs, args.before)), flush=True)
    if args.all_atoms:
        print()
        print("\n".join(audit_all(args.all_atoms)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
