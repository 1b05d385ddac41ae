"""The organisation's memory at 100,000 atoms across 50 repositories, in Milvus Lite (issue 46).

    python benchmarks/org_bench.py [--work DIR] [--repos 50] [--atoms 100000] [--queries 300]

Builds 50 memory repositories (git, committed) holding 100,000 atoms together: every SciFact
abstract (English, 5,183) and CMRC2018 paragraph (Chinese, 1,104) as an atom of its own,
spread round-robin over the repositories, and real-text atoms (`benchmarks/realtext.py`: the
same public text cut into other stretches, so the labelled atoms compete with their own
sentences) for the rest. The public sets are read from ../shared/data/ (or --data), never
committed; without them the benchmark says so and stops.

Measured, in one run: the local index of each repository (`memkit index`); `memkit org
publish` of all 50 into one Milvus Lite file (time, the file's size); a republish after 10
atoms of one repository changed and one of an unchanged repository; the Lite file opened
again and its first query; the latency of org search (hybrid, limit 10) per query; and its
recall@10 and nDCG@10 on SciFact's test queries and 300 CMRC2018 trial queries, against one
repository holding the same 100,000 atoms searched by memkit's local index (hybrid, limit
10). Nothing is tuned on these queries: the fusion weights were set before the first run.
--work keeps the repositories between runs.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import data_dir, load_beir, ndcg_at_10, p50_p95, read_qrels, recall_at, slug
from realsize import write_files
from realtext import Texts, atoms

from memkit.index import open_index, refresh
from memkit.org.publish import org_model, publish
from memkit.org.search import OrgSearch
from memkit.org.settings import settings_for
from memkit.org.store import OrgStore

GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]


def say(*parts: object) -> None:
    print(*parts, flush=True)


def commit(root: Path, message: str) -> None:
    if not (root / ".git").is_dir():
        subprocess.run([*GIT, "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-q", "--no-verify", "-m", message], cwd=root, check=True)


def labelled(data: Path) -> list[tuple[str, str]]:
    """(path, file text) of every SciFact and CMRC2018 document as an atom."""
    out = []
    for name in ("scifact", "cmrc2018"):
        docs, _ = load_beir(data, name)
        for doc_id, title, text in docs:
            atom_id = slug(doc_id)
            head = (title or text[:80]).replace("\n", " ").strip() or atom_id
            out.append(
                (
                    f"shared/{atom_id}.md",
                    f"---\nid: {atom_id}\ntype: fact\nconfidence: observed\n"
                    f"created: 2026-01-01\n---\n# {head}\n\n{text}\n",
                )
            )
    return out


def filler(n: int, data: Path) -> list[tuple[str, str]]:
    """Real-text atoms, every one of the team's (realtext's episodic share moved to shared)."""
    return [
        (rel.replace("episodic/", "shared/notes/"), text) for rel, text, _ in atoms(n, Texts(data))
    ]


def build(work: Path, data: Path, repos: int, total: int) -> tuple[list[Path], Path]:
    """The org's repositories and the one repository holding all their atoms."""
    ready = work / ".ready"
    org = [work / f"team-{i:02d}" for i in range(repos)]
    single = work / "single"
    if ready.is_file():
        return org, single
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    files = labelled(data)
    files += filler(total - len(files), data)
    say(f"writing {len(files):,} atoms into {repos} repositories and one")
    shares: list[list[tuple[str, str]]] = [[] for _ in range(repos)]
    for i, item in enumerate(files):
        shares[i % repos].append(item)
    for root, share in zip(org, shares, strict=True):
        root.mkdir()
        write_files(root, share)
        commit(root, "atoms")
    single.mkdir()
    write_files(single, files)
    commit(single, "atoms")
    ready.write_text("ok\n", encoding="utf-8")
    return org, single


def queries(data: Path, n: int) -> dict[str, list[tuple[str, dict[str, int]]]]:
    out = {}
    for name, qrels in (("scifact", "test"), ("cmrc2018", "trial")):
        _, texts = load_beir(data, name)
        judged = read_qrels(data / name / "qrels" / f"{qrels}.tsv")
        pairs = [
            (texts[q], {slug(d): g for d, g in rel.items()})
            for q, rel in judged.items()
            if q in texts
        ]
        random.Random(46).shuffle(pairs)
        out[f"{name} {qrels}"] = pairs[:n]
    return out


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--data")
    parser.add_argument("--repos", type=int, default=50)
    parser.add_argument("--atoms", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="query the org file an earlier run of --work published (no publish timings)",
    )
    parser.add_argument("--rankers", default="weighted,rrf", help="which rankers to measure")
    args = parser.parse_args()
    data = data_dir(args.data)
    if data is None:
        say("public data sets not found (pass --data): nothing to measure")
        return 1
    work = args.work or Path(tempfile.mkdtemp(prefix="memkit-org-bench-"))
    org, single = build(work, data, args.repos, args.atoms)
    say(f"work folder: {work}")

    started = time.perf_counter()
    for root in [*org, single]:
        refresh(root, quiet=True)
    say(
        f"local indexes (50 repositories and the single one): {time.perf_counter() - started:.0f} s"
    )

    lite = work / "org.db"
    settings = settings_for(str(lite))
    model = org_model()
    if not args.reuse:
        publish_all(org, lite, model)
    else:
        say(f"reusing {lite} ({du(lite) / 1e6:.0f} MB)")
    # Opened again, as a warm engine or a command would.
    started = time.perf_counter()
    store = OrgStore(settings, timeout=600).open()
    store.load()
    open_s = time.perf_counter() - started
    searcher = OrgSearch(store, model)
    started = time.perf_counter()
    searcher.search("warm up the org search", "", limit=10, floor=False)
    first_s = time.perf_counter() - started
    say(f"reopen and load: {open_s:.1f} s; first query: {first_s:.1f} s")

    local = open_index(single)
    for name, pairs in queries(data, args.queries).items():
        for ranker in args.rankers.split(","):
            measure(name, pairs, ranker, searcher, local)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    say(f"peak RSS of this process (Lite in it, and the single index): {rss:.0f} MB")
    store.close()
    load = os.getloadavg()[0]
    say(f"machine: {os.cpu_count()} cores, load {load:.1f}; python {sys.version.split()[0]}")
    return 0


def publish_all(org: list[Path], lite: Path, model: Any) -> None:
    """Publish every repository into a new Lite file, then republish after a change."""
    shutil.rmtree(lite, ignore_errors=True)
    store = OrgStore(settings_for(str(lite)), timeout=600).open()
    store.ensure(model.dim, model.name)
    started = time.perf_counter()
    published = 0
    per_repo = []
    for root in org:
        done = publish(root, store, model=model)
        published += done.written
        per_repo.append(done.seconds)
    publish_s = time.perf_counter() - started
    started = time.perf_counter()
    store.flush()
    flush_s = time.perf_counter() - started
    say(
        f"publish: {published:,} atoms from {len(org)} repositories in {publish_s:.0f} s "
        f"(per repository p50 {statistics.median(per_repo):.1f} s), flush {flush_s:.1f} s"
    )

    # Incremental: 10 atoms of one repository changed, then an unchanged repository.
    changed = org[0]
    for path in sorted((changed / "shared").glob("*.md"))[:10]:
        path.write_text(path.read_text(encoding="utf-8") + "\n- One more line.\n", "utf-8")
    commit(changed, "ten atoms changed")
    refresh(changed, quiet=True)
    again = publish(changed, store, model=model)
    same = publish(org[1], store, model=model)
    say(f"republish after 10 changed atoms: {again.line()}")
    say(f"republish, nothing changed: {same.line()}")
    started = time.perf_counter()
    store.close()
    close_s = time.perf_counter() - started
    size = du(lite)
    say(
        f"Milvus Lite file: {size / 1e6:.0f} MB ({size / published:.0f} bytes an atom); "
        f"close {close_s:.1f} s"
    )


def measure(
    name: str, pairs: list[tuple[str, dict[str, int]]], ranker: str, searcher: Any, local: Any
) -> None:
    """Recall@10 and nDCG@10 of the org's search and of the single repository's local index
    on the same queries, and the org query's latency."""
    rec_org, nd_org, rec_loc, nd_loc, times = [], [], [], [], []
    for text, relevant in pairs:
        started = time.perf_counter()
        hits = searcher.search(text, "", limit=10, floor=False, ranker=ranker)
        times.append((time.perf_counter() - started) * 1000)
        ranked = [h.atom_id for h in hits]
        rec_org.append(recall_at(ranked, relevant, 10))
        nd_org.append(ndcg_at_10(ranked, relevant))
        mine = [h.id for h in local.search(text, limit=10, mode="hybrid")]
        rec_loc.append(recall_at(mine, relevant, 10))
        nd_loc.append(ndcg_at_10(mine, relevant))
    p50, p95 = p50_p95(times)
    say(
        f"{name} ({len(pairs)} queries), org {ranker}: recall@10 "
        f"{statistics.mean(rec_org):.3f}, nDCG@10 {statistics.mean(nd_org):.3f}; "
        f"query p50 {p50:.0f} ms, p95 {p95:.0f} ms | single repository, local index: "
        f"recall@10 {statistics.mean(rec_loc):.3f}, nDCG@10 {statistics.mean(nd_loc):.3f}"
    )


if __name__ == "__main__":
    raise SystemExit(main())
