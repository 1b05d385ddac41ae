"""Helpers shared by the benchmarks: timing, public data sets as memory repositories."""

from __future__ import annotations

import json
import math
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"


def data_dir(arg: str | None) -> Path | None:
    path = Path(arg) if arg else DEFAULT_DATA
    return path if path.is_dir() else None


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """One JSON object a line; the rows' fields differ from one data set to the next."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        q, d, score = line.split("\t")
        if int(score) > 0:
            out.setdefault(q, {})[d] = int(score)
    return out


def slug(doc_id: str) -> str:
    return "d-" + re.sub(r"[^a-z0-9]+", "-", doc_id.lower()).strip("-")


def load_beir(base: Path, name: str) -> tuple[list[tuple[str, str, str]], dict[str, str]]:
    """A BEIR set's documents as (id, title, text) and its queries by id."""
    docs = [
        (d["_id"], d.get("title", ""), d["text"]) for d in read_jsonl(base / name / "corpus.jsonl")
    ]
    queries = {q["_id"]: q["text"] for q in read_jsonl(base / name / "queries.jsonl")}
    return docs, queries


def split(
    queries: dict[str, str], qrels: dict[str, dict[str, int]]
) -> list[tuple[str, dict[str, int]]]:
    """Each judged query's text with its relevant documents as atom ids (`slug`) and grades."""
    return [
        (queries[q], {slug(d): g for d, g in rel.items()})
        for q, rel in qrels.items()
        if q in queries
    ]


def write_repo(root: Path, docs: Iterable[tuple[str, str, str]]) -> int:
    """A memory repository (no git needed) with one atom per (id, title, text)."""
    (root / "shared").mkdir(parents=True, exist_ok=True)
    (root / "memkit.yaml").write_text(
        "limits:\n  atom_lines: 100000\n  atom_bytes: 10000000\n", encoding="utf-8"
    )
    n = 0
    for doc_id, raw_title, text in docs:
        atom_id = slug(doc_id)
        title = (raw_title or text[:80]).replace("\n", " ").strip() or atom_id
        (root / "shared" / f"{atom_id}.md").write_text(
            f"---\nid: {atom_id}\ntype: fact\nconfidence: observed\ncreated: 2026-01-01\n---\n"
            f"# {title}\n\n{text}\n",
            encoding="utf-8",
        )
        n += 1
    return n


def commit_all(root: Path) -> None:
    """Make `root` a git repository with everything committed, as a team's memory repo is:
    the index then takes unchanged files' ids from `git ls-files -s` instead of hashing them."""
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-q", "--no-verify", "-m", "atoms"], cwd=root, check=True)


def ndcg_at_10(ranked: list[str], relevant: dict[str, int]) -> float:
    dcg = sum(relevant.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
    ideal = sorted(relevant.values(), reverse=True)[:10]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(ranked: list[str], relevant: dict[str, int], k: int) -> float:
    return len(set(ranked[:k]) & relevant.keys()) / len(relevant) if relevant else 0.0


def mrr_at_10(ranked: list[str], relevant: dict[str, int]) -> float:
    for i, d in enumerate(ranked[:10]):
        if d in relevant:
            return 1.0 / (i + 1)
    return 0.0


def fresh_process_ms(argv: list[str], runs: int, cwd: Path | None = None) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = subprocess.run(argv, cwd=cwd, capture_output=True, check=False)
        # Checks exit 1 when they find something; only a crash or usage error spoils a run.
        if result.returncode not in (0, 1):
            raise RuntimeError(f"{argv[:4]} exited {result.returncode}: {result.stderr[-500:]!r}")
        times.append((time.perf_counter() - start) * 1000)
    return times


def p50_p95(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def side_by_side(
    runs: int, commands: dict[str, list[str]], cwd: Path | None = None
) -> dict[str, list[float]]:
    """Interleave the commands so that machine noise hits them alike."""
    out: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, argv in commands.items():
            out[name] += fresh_process_ms(argv, 1, cwd)
    return out


PYTHON = sys.executable


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def count_labelled(
    rows: Iterable[dict[str, Any]], flags: Callable[[str], bool], positive: str, show: bool
) -> tuple[int, int, int, int]:
    """(tp, fp, fn, tn) of a check that flags a row's `text` or not, against rows labelled
    `positive` or something else; `show` prints each error (for the set tuned on only)."""
    tp = fp = fn = tn = 0
    for row in rows:
        flagged = flags(row["text"])
        wanted = row["label"] == positive
        tp, fp = tp + (flagged and wanted), fp + (flagged and not wanted)
        fn, tn = fn + (wanted and not flagged), tn + (not wanted and not flagged)
        if show and flagged != wanted:
            print(f"  {'missed' if wanted else 'false alarm'}: {row['text'][:90]!r}")
    return tp, fp, fn, tn


def labelled_cells(tp: int, fp: int, fn: int, tn: int) -> str:
    """`precision (tp/flagged) | recall (tp/positives) | fp of negatives benign`: the cells the
    labelled-set benchmarks print for a check that flags or not."""
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return (
        f"{precision:.2f} ({tp}/{tp + fp}) | {recall:.2f} ({tp}/{tp + fn}) "
        f"| {fp} of {fp + tn} benign"
    )
