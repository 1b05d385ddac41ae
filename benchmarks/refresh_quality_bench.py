"""Does an index after many refreshes rank as a full build does? (issue 33)

    python benchmarks/refresh_quality_bench.py [--data DIR] [--refreshes 300] [--per 10]

Each refresh deletes the earlier document of every atom it indexes again, and a refresh no
longer makes tantivy merge the build's segments (`memkit.index.segments`): the deleted
documents stay there until tantivy merges, and tantivy counts them in BM25's statistics
(document frequencies, the number of documents, average lengths). This measures what that
does to ranking: SciFact (read from ../shared/data or --data, never committed) as a memory,
nDCG@10 on its 300 test queries with BM25 alone and with memkit's hybrid, after a full build,
after REFRESHES refreshes that each index PER atoms again whose text did not change (only
their `created:` date moves, which tantivy does not index), and after a full build of the
result. Prints the deleted documents and segments too. Nothing is tuned here.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import data_dir, load_beir, ndcg_at_10, read_qrels, split, write_repo

from memkit.index import open_index, refresh
from memkit.index.store import current_generation


def score(root: Path, queries: list[tuple[str, dict[str, int]]]) -> tuple[float, float]:
    """(BM25, hybrid) nDCG@10 of the live generation."""
    reader = open_index(root)
    out = []
    for mode in ("bm25", "hybrid"):
        out.append(
            statistics.mean(
                ndcg_at_10([hit.id for hit in reader.search(q, limit=10, mode=mode)], rel)
                for q, rel in queries
            )
        )
    return out[0], out[1]


def segments(root: Path) -> tuple[int, int]:
    """(segments, deleted documents) of the live generation's tantivy index."""
    gen = current_generation(root)
    assert gen is not None
    meta = json.loads((gen / "tantivy" / "meta.json").read_text(encoding="utf-8"))
    deleted = sum((s.get("deletes") or {}).get("num_deleted_docs", 0) for s in meta["segments"])
    return len(meta["segments"]), deleted


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", help="folder with scifact/ (BEIR layout)")
    parser.add_argument("--refreshes", type=int, default=300)
    parser.add_argument("--per", type=int, default=10, help="atoms each refresh indexes again")
    args = parser.parse_args()
    data = data_dir(args.data)
    if data is None or not (data / "scifact").is_dir():
        print("SciFact not found (pass --data): nothing to measure", file=sys.stderr)
        return 1
    docs, texts = load_beir(data, "scifact")
    queries = split(texts, read_qrels(data / "scifact" / "qrels" / "test.tsv"))
    with tempfile.TemporaryDirectory(prefix="memkit-refresh-quality-") as tmp:
        root = Path(tmp) / "scifact"
        write_repo(root, docs)
        refresh(root, full=True)
        rows = [("after a full build", score(root, queries), segments(root), 0.0)]
        files = sorted((root / "shared").glob("*.md"))
        order = random.Random(33).sample(files, len(files))
        took = []
        for n in range(args.refreshes):
            for path in order[(n * args.per) % len(order) :][: args.per]:
                text = path.read_text(encoding="utf-8")
                path.write_text(text.replace("created: 2026-01-0", "created: 2026-02-0"), "utf-8")
            started = time.perf_counter()
            refresh(root)
            took.append(time.perf_counter() - started)
        label = f"after {args.refreshes} refreshes of {args.per} atoms each"
        rows.append((label, score(root, queries), segments(root), statistics.median(took)))
        refresh(root, full=True)
        rows.append(
            ("after a full build of the same files", score(root, queries), segments(root), 0.0)
        )
    print(f"SciFact, {len(docs):,} atoms, {len(queries)} test queries (nDCG@10)\n")
    print("| index | BM25 | hybrid | tantivy segments | deleted documents |")
    print("|---|---|---|---|---|")
    for label, (bm25, hybrid), (count, deleted), _ in rows:
        print(f"| {label} | {bm25:.4f} | {hybrid:.4f} | {count} | {deleted:,} |")
    print(f"\nrefresh in process, p50: {rows[1][3] * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
