"""The eval gate: golden queries must still find their atoms after a change.

A memory repository may keep `evals/queries.yaml` (query → expected atom ids). The index is
built at the base and at the head; Recall@5 must not drop by more than `ci.max_recall_drop`.
Both the queries and the threshold are the base's: a pull request is not judged by its own.
This catches edits that make memory unfindable (a renamed trigger, a rewritten title).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from memkit.config import Config
from memkit.errors import MemkitError
from memkit.git import run, show, succeeds
from memkit.index import open_index, refresh

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"ruamel.yaml", "ruamel.yaml.error"}


QUERIES = "evals/queries.yaml"
K = 5


@dataclass(frozen=True)
class QueryResult:
    query: str
    expected: tuple[str, ...]
    base: float
    head: float


@dataclass(frozen=True)
class EvalResult:
    rows: tuple[QueryResult, ...]
    base_recall: float
    head_recall: float
    max_drop: float

    @property
    def ok(self) -> bool:
        return self.head_recall >= self.base_recall - self.max_drop - 1e-9

    def table(self) -> str:
        lines = [f"| query | expected | base R@{K} | head R@{K} |", "|---|---|---|---|"]
        for r in self.rows:
            mark = " ⬇" if r.head < r.base else ""
            lines.append(
                f"| {r.query} | {', '.join(r.expected)} | {r.base:.2f} | {r.head:.2f}{mark} |"
            )
        lines.append(f"| **mean** | | **{self.base_recall:.3f}** | **{self.head_recall:.3f}** |")
        return "\n".join(lines)


def load_queries(text: str) -> list[tuple[str, tuple[str, ...]]]:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        data = YAML(typ="safe", pure=True).load(text)
    except YAMLError as exc:
        raise MemkitError(f"{QUERIES}: invalid YAML: {exc}") from exc
    items = data.get("queries") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise MemkitError(f"{QUERIES}: expected a list of {{query, expect}} entries")
    out = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("query"), str):
            raise MemkitError(f"{QUERIES}: each entry needs `query: text` and `expect: [ids]`")
        expect = item.get("expect", [])
        expect = [expect] if isinstance(expect, str) else expect
        out.append((item["query"], tuple(str(e) for e in expect)))
    return out


def recall_at_k(root: Path, queries: Sequence[tuple[str, tuple[str, ...]]]) -> list[float]:
    refresh(root, full=True, quiet=True)
    reader = open_index(root)
    scores = []
    for query, expected in queries:
        ids = {hit.id for hit in reader.search(query, limit=K)}
        scores.append(len(ids & set(expected)) / len(expected) if expected else 1.0)
    return scores


def run_eval_gate(
    root: Path, base: str, config: Config, *, queries_rev: str | None = None
) -> EvalResult | None:
    """Recall@5 at `base` and at the checked-out head. The golden queries come from
    `queries_rev` (CI: the base branch, so a pull request cannot delete or weaken them) or,
    without it, the working tree; the allowed drop comes from `config` (CI: the base's)."""
    if queries_rev is None:
        path = root / QUERIES
        text = path.read_text(encoding="utf-8") if path.is_file() else None
    else:
        text = show(root, queries_rev, QUERIES)
    if text is None:
        return None
    queries = load_queries(text)
    if not queries:
        return None
    drop = config.section("ci").get("max_recall_drop", 0.0)
    max_drop = float(drop) if isinstance(drop, (int, float)) else 0.0
    head_scores = recall_at_k(root, queries)
    workdir = Path(tempfile.mkdtemp(prefix="memkit-base-"))
    try:
        run(root, "worktree", "add", "--detach", "--quiet", str(workdir), base)
        base_scores = recall_at_k(workdir, queries)
    finally:
        # Best effort: the folder goes below either way; git forgets it at its next prune.
        succeeds(root, "worktree", "remove", "--force", str(workdir))
        shutil.rmtree(workdir, ignore_errors=True)
    rows = tuple(
        QueryResult(q, e, b, h)
        for (q, e), b, h in zip(queries, base_scores, head_scores, strict=True)
    )
    n = len(rows)
    return EvalResult(rows, sum(base_scores) / n, sum(head_scores) / n, max_drop)
