"""Judgements on text the team did not write (issue 27): the one verdict on public pair sets and
on the claim sets, pulls of 100 atoms into 1,000 and 10,000, and unrelated new atoms at the gate.

    python benchmarks/claims_bench.py [--split heldout|dev] [--sizes 1000 10000]
                                      [--gate-sizes 20 1000 10000] [--before SRC] [--skip-pull]

- pairs: for each set, contradiction recall (labelled contradictions judged `contradicts`),
  false alarms (other pairs judged `contradicts`), duplicate precision and recall, with the
  verdict of this tree and, with `--before SRC`, of another tree (`PYTHONPATH=SRC`, e.g.
  `git archive main memkit | tar -x -C SRC`; there `atom_verdict` or `classify`).
  Sets: `public_history` (a doc line before and after one value changed; identifiers that
  changed are negatives), `public_rules` (the same rule in a `.cursorrules` and an `.mdc` file
  against another rule of the set), `claims_heldout` / `claims_dev` (en and zh: two people, two
  subjects, set-valued relations, identifiers, migrations, paraphrases).
- adr: each ADR collection of `public_adr.jsonl` as one memory, `memkit audit --all` in
  process: recall of the real supersessions, false alarms (other contradictions) per record.
- pull: the pairs of `public_history` and `claims_*` of the split, then rule pairs of
  `public_rules` (another rule of the same set) up to 100; the first halves in a memory of N
  atoms (the rest generated facts, `facts.py`), the second
  halves pulled in one commit, `memkit audit --from HEAD~1 --to HEAD` in a fresh process:
  recall, false alarms per incoming atom, p50 time.
- gate: 100 new atoms unrelated to a memory of N (the 12 of `tests/audit/judgement_memory.py`, then
  bullets of `public_rules`), each committed alone to a memory of `tests/audit/judgement_memory.py`
  and generated facts: the share that gets any MK103–MK106 finding from
  `memkit gate`'s checks (`gate_atoms` and the write check), in process.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from _common import PYTHON, ROOT, p50_p95, read_jsonl, side_by_side
from audit_bench import build_pull, score
from facts import facts

DATA = ROOT / "benchmarks" / "data"
PAIR_SETS = ("public_history", "public_rules", "claims_heldout", "claims_dev")
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]


def _judge(a: str, b: str, similarity: float) -> str:
    try:
        from memkit.audit.verdict import verdict
    except ImportError:  # a tree from before issue 27 (--before): the text classifier
        from memkit.audit.classify import classify

        return classify(a, b, similarity=similarity).kind
    return verdict(a, b, similarity=similarity).kind


def pair_rows(name: str, split: str) -> list[dict[str, Any]]:
    path = DATA / f"{name}.jsonl"
    if not path.is_file():
        return []
    rows = [r for r in read_jsonl(path) if r.get("a") and r.get("label") != "memory"]
    if name.startswith("public_"):
        rows = [r for r in rows if r["split"] == split]
    elif not name.endswith(split):
        return []
    return rows


def measure_pairs(split: str) -> dict[str, list[int]]:
    """Per set and language: [tp, positives, fp, negatives, dup tp, dup predicted, dups]."""
    from memkit.embedding import load_encoder

    encoder = load_encoder()
    out: dict[str, list[int]] = defaultdict(lambda: [0] * 7)
    for name in PAIR_SETS:
        for r in pair_rows(name, split):
            va, vb = encoder.encode([r["a"], r["b"]])
            kind = _judge(r["a"], r["b"], float(va @ vb))
            cell = out[f"{name}/{r.get('lang', 'en')}"]
            kinds = out[f"{name}/{r.get('lang', 'en')}/{r.get('kind', r['label'])}"]
            for c in (cell, kinds):
                if r["label"] == "contradicts":
                    c[0] += kind == "contradicts"
                    c[1] += 1
                else:
                    c[2] += kind == "contradicts"
                    c[3] += 1
                c[4] += kind == "duplicate" and r["label"] == "duplicate"
                c[5] += kind == "duplicate"
                c[6] += r["label"] == "duplicate"
    return dict(out)


def _ratio(found: int, n: int) -> str:
    return f"{found / n:.2f} ({found}/{n})" if n else "–"


def pairs_table(split: str, before: str | None, kinds: bool) -> list[str]:
    after = measure_pairs(split)
    old: dict[str, list[int]] = {}
    if before:
        env = {**os.environ, "PYTHONPATH": before}
        argv = [sys.executable, __file__, "--pairs-json", "--split", split]
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
        old = json.loads(done.stdout)
    lines = [
        f"| set ({split}) | lang | contradiction recall | false alarms | duplicate precision "
        "| duplicate recall |",
        "|---|---|---|---|---|---|",
    ]
    for key in sorted(after):
        parts = key.split("/")
        if len(parts) == 3 and not kinds:
            continue
        cells = []
        for counts in (old.get(key), after[key]):
            if counts is None:
                cells.append(("", "", "", ""))
                continue
            tp, pos, fp, neg, dtp, dpred, dups = counts
            cells.append(
                (
                    _ratio(tp, pos),
                    _ratio(fp, neg),
                    _ratio(dtp, dpred) if dups else "–",
                    _ratio(dtp, dups),
                )
            )
        shown = [f"{b} → {a}" if before else a for b, a in zip(*cells, strict=True)]
        lines.append(f"| {parts[0]} | {' / '.join(parts[1:])} | {' | '.join(shown)} |")
    return lines


def adr_table(split: str, show: bool = False) -> list[str]:
    """Each ADR collection of the split as one memory: `--all`, in process."""
    from memkit.audit.run import audit
    from memkit.config import load_config

    rows = [r for r in read_jsonl(DATA / "public_adr.jsonl") if r["split"] == split]
    lines = [
        "| ADR collection | split | records | supersessions found | false alarms / record "
        "| duplicates reported | time |",
        "|---|---|---|---|---|---|---|",
    ]
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by[r["collection"]].append(r)
    for name, records in sorted(by.items()):
        with tempfile.TemporaryDirectory(prefix="memkit-adr-", ignore_cleanup_errors=True) as tmp:
            root = Path(tmp)
            (root / "shared").mkdir()
            (root / "memkit.yaml").write_text(
                "limits:\n  atom_lines: 100000\n  atom_bytes: 10000000\n", "utf-8"
            )
            ids = {}
            for i, r in enumerate(records):
                atom_id = f"adr-{i:03d}"
                ids[r["id"]] = atom_id
                title = r["title"].replace("\n", " ") or atom_id
                (root / "shared" / f"{atom_id}.md").write_text(
                    f"---\nid: {atom_id}\ntype: decision\nconfidence: observed\n"
                    f"created: 2026-01-01\n---\n# {title}\n\n{r['text']}\n",
                    "utf-8",
                )
            subprocess.run([*GIT, "init", "-q"], cwd=root, check=True)
            expected = {
                frozenset((ids[r["id"]], ids[r["supersedes"]])) for r in records if r["supersedes"]
            }
            start = time.perf_counter()
            results = audit(root, [], load_config(root), everything=True)
            took = time.perf_counter() - start
            found = {frozenset((x.incoming, x.other)) for x in results if x.kind == "contradicts"}
            dups = sum(x.kind == "duplicate" for x in results)
            alarms = len(found - expected)
            if show:
                for x in results:
                    if x.kind == "contradicts":
                        print(f"  {name} {x.incoming} {x.other}: {x.reason}", file=sys.stderr)
            lines.append(
                f"| {name} | {records[0]['split']} | {len(records)} | "
                f"{len(found & expected)}/{len(expected)} | {alarms / len(records):.2f} "
                f"({alarms}) | {dups} | {took:.1f} s |"
            )
    return lines


def pull_pairs(split: str) -> list[dict[str, Any]]:
    rows = [
        r
        for name in ("public_history", f"claims_{split}")
        for r in pair_rows(name, split)
        if r["label"] in ("contradicts", "identifier", "compatible")
    ]
    # Up to 100 incoming atoms: then rules of the same collection, each against another rule of
    # its set (a same-repository negative).
    rows += [r for r in pair_rows("public_rules", split) if r["label"] == "distinct"]
    rows = [
        {**r, "label": r["label"] if r["label"] == "contradicts" else "compatible"} for r in rows
    ]
    for i, r in enumerate(rows):
        r["id"] = f"p{i:03d}"
    return rows[:100]


def pull(n: int, split: str, runs: int) -> list[str]:
    pairs = pull_pairs(split)
    with tempfile.TemporaryDirectory(prefix="memkit-claims-", ignore_cleanup_errors=True) as tmp:
        root = Path(tmp) / "repo"
        expected = build_pull(root, n, pairs)
        argv = [PYTHON, "-m", "memkit", "audit", "--from", "HEAD~1", "--to", "HEAD", "--json"]
        times = side_by_side(
            runs, {"python -c pass": [PYTHON, "-c", "pass"], "audit": argv}, cwd=root
        )
        done = subprocess.run(argv, cwd=root, capture_output=True, text=True, check=False)
        s = score(json.loads(done.stdout)["results"], expected, len(pairs))
        p50, _ = p50_p95(times["audit"])
        base, _ = p50_p95(times["python -c pass"])
        for pair in s["alarm_pairs"][:8]:
            print(f"  false alarm ({n}): {pair}", file=sys.stderr)
        return [
            f"| {len(pairs)} into {n:,} ({split}) | {s['recall']:.2f} ({s['tp']}/{s['n']}) | "
            f"{s['alarms']:.2f} | {p50 / 1000:.2f} s | {base / 1000:.2f} s |"
        ]


def _new_atom(atom_id: str, text: str) -> str:
    return (
        f"---\nid: {atom_id}\ntype: fact\nconfidence: observed\ncreated: 2026-01-01\n---\n"
        f"# {text[:70]}\n\n{text}\n"
    )


def gate_unrelated(n: int) -> list[str]:
    """Share of 100 unrelated new atoms with any MK103–MK106 finding in a memory of `n`."""
    sys.path.insert(0, str(ROOT))
    from memkit.atom.read import read_atom
    from memkit.audit.write import conflicts
    from memkit.checks.gate import gate_atoms
    from memkit.config import load_config
    from tests.audit.judgement_memory import MEMORY, UNRELATED

    rules = [t for r in read_jsonl(DATA / "public_rules.jsonl") for t in (r["a"], r["b"])]
    new = [*(text for _, text in UNRELATED), *dict.fromkeys(rules)][:100]
    with tempfile.TemporaryDirectory(prefix="memkit-gate-", ignore_cleanup_errors=True) as tmp:
        root = Path(tmp)
        shared = root / "shared"
        shared.mkdir()
        (root / "memkit.yaml").write_text("version: 1\n", "utf-8")
        for atom_id, title, body in MEMORY[: min(n, len(MEMORY))]:
            (shared / f"{atom_id}.md").write_text(
                f"---\nid: {atom_id}\ntype: fact\nconfidence: observed\ncreated: 2026-01-01\n"
                f"---\n# {title}\n\n{body}\n",
                "utf-8",
            )
        avoid = " ".join(new)
        for i, (_, text, _) in enumerate(facts(max(0, n - len(MEMORY)), avoid=avoid)):
            (shared / f"f-{i:05d}.md").write_text(_new_atom(f"f-{i:05d}", text), "utf-8")
        subprocess.run([*GIT, "init", "-q"], cwd=root, check=True)
        subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
        subprocess.run([*GIT, "commit", "-qm", "memory"], cwd=root, check=True)
        subprocess.run([PYTHON, "-m", "memkit", "index", "--quiet"], cwd=root, check=True)
        config = load_config(root)
        start = time.perf_counter()
        codes: dict[str, set[str]] = defaultdict(set)
        # One new atom at a time, as one commit brings it: new atoms are not compared with
        # one another here (some rule bullets are near copies of each other).
        for i, text in enumerate(new):
            relpath = f"shared/new-{i:03d}.md"
            (root / relpath).write_text(_new_atom(f"new-{i:03d}", text), "utf-8")
            atom = read_atom(root, relpath, config).atom
            if atom is not None:
                for result in gate_atoms(root, [atom], config):
                    codes[relpath] |= {f.code for f in result.findings}
                for found in conflicts(root, [atom], config):
                    codes[relpath].add(found.finding().code)
                    print(f"  {n}: {relpath} vs {found.other_id}: {found.reason}", file=sys.stderr)
            (root / relpath).unlink()
        live = new
        took = time.perf_counter() - start
        judged = {p: sorted(c & {"MK103", "MK104", "MK105", "MK106"}) for p, c in codes.items()}
        hit = {p: c for p, c in judged.items() if c}
        for p, got in sorted(hit.items()):
            print(f"  {n}: {got} {p} {new[int(p.split('-')[1][:3])][:90]}", file=sys.stderr)
        issue = sum(1 for p in hit if int(p.split("-")[1][:3]) < len(UNRELATED))
        kinds = Counter(code for got in hit.values() for code in got)
        return [
            f"| {n:,} | {len(hit)}/{len(live)} ({len(hit) / len(live):.0%}) | "
            f"{issue}/{len(UNRELATED)} | {dict(sorted(kinds.items()))} | {took:.1f} s |"
        ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--split", choices=("heldout", "dev"), default="heldout")
    parser.add_argument("--sizes", type=int, nargs="*", default=[1_000, 10_000])
    parser.add_argument("--gate-sizes", type=int, nargs="*", default=[20, 1_000, 10_000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--before", help="another memkit source tree, for the pair sets")
    parser.add_argument("--kinds", action="store_true")
    parser.add_argument("--skip-pull", action="store_true")
    parser.add_argument("--skip-pairs", action="store_true", help="no pair sets, no ADRs")
    parser.add_argument("--pairs-json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("MEMKIT_NO_ENGINE", "1")
    if args.pairs_json:
        print(json.dumps(measure_pairs(args.split)))
        return 0
    if not args.skip_pairs:
        print("\n".join(pairs_table(args.split, args.before, args.kinds)), end="\n\n", flush=True)
        print("\n".join(adr_table(args.split, args.kinds)), end="\n\n", flush=True)
    if not args.skip_pull:
        print("| pull | recall | false alarms / incoming | audit p50 | python -c pass p50 |")
        print("|---|---|---|---|---|")
        for n in args.sizes:
            print("\n".join(pull(n, args.split, args.runs)), flush=True)
        print()
    print(
        "| memory | unrelated new atoms with any MK103–MK106 | of the 12 issue atoms | codes "
        "| time |"
    )
    print("|---|---|---|---|---|")
    for n in args.gate_sizes:
        print("\n".join(gate_unrelated(n)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
