"""How long `memkit site` takes at 1,000 and 10,000 real-size atoms, first build and again.

    python benchmarks/site_bench.py [--sizes 1000,10000] [--runs 3] [--data ../shared/data]

Atoms from `realsize.py` (SciFact and CMRC2018 text of real length, English and Chinese,
read from the public sets, never committed), every one in a folder the site shows (the
generator's episodic quarter goes to `roles/programmer/`), one in fifty superseding an older
one, committed in ten commits by five authors, with one member's usage export. Each command
runs in a fresh process, side by side with `memkit validate` over the same repository (the
floor: reading every atom through admission):

- first build into an empty folder, without the site cache, as in CI's fresh clone (wall and
  CPU, median and range of `--runs`);
- again with nothing changed (every page reused);
- again after 10 atoms changed (their pages and their neighbours' rewritten);
- the phases of one first build, in process (collect, history, health, atom pages, other
  pages, search index), and the size of the output.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import data_dir
from realsize import Corpus, atoms

ROOT = Path(__file__).resolve().parents[1]
AUTHORS = ("ann", "bob", "carol", "dan", "eve")


def git(root: Path, *args: str, author: str = "bench") -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": author,
        "GIT_AUTHOR_EMAIL": f"{author}@example.invalid",
        "GIT_COMMITTER_NAME": author,
        "GIT_COMMITTER_EMAIL": f"{author}@example.invalid",
    }
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def make_repo(root: Path, n: int, corpus: Corpus) -> list[str]:
    """The memory, committed in ten commits; the paths of its atoms."""
    root.mkdir(parents=True)
    (root / "memkit.yaml").write_text("version: 1\n", encoding="utf-8")
    git(root, "init", "-q")
    paths: list[str] = []
    previous = ""
    batch = max(1, n // 10)
    for i, (rel, text) in enumerate(atoms(n, corpus)):
        rel = rel.replace("episodic/", "roles/programmer/", 1)
        atom_id = rel.rsplit("/", 1)[-1].removesuffix(".md")
        if previous and i % 50 == 7 and "\nrelated:" not in text:
            text = text.replace("\n---\n", f"\nsupersedes: [{previous}]\n---\n", 1)
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        paths.append(rel)
        previous = atom_id
        if (i + 1) % batch == 0 or i == n - 1:
            git(root, "add", "-A")
            git(root, "commit", "-q", "--no-verify", "-m", f"atoms {i + 1}", author=AUTHORS[i % 5])
    usage = {
        Path(p).stem: {"confirmed": 1 + k % 9, "injected": 2 + k % 7, "first": "2026-03-01"}
        for k, p in enumerate(paths[: n // 10])
    }
    doc = {
        "memkit_usage": 1,
        "user": "ann",
        "clones": {"c1": {"since": "2026-03-01", "atoms": usage}},
    }
    (root / "usage").mkdir()
    (root / "usage/ann.json").write_text(json.dumps(doc), encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "-m", "usage", author="ann")
    return paths


def timed(root: Path, *argv: str) -> tuple[float, float]:
    """(wall, CPU) seconds of `memkit ARGV` in a fresh process; the CPU time (user and
    system, both cores) says more than the wall time on a machine others load."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "memkit", *argv],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"memkit {' '.join(argv)} failed: {done.stderr}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return took, cpu


def summary(runs: list[tuple[float, float]]) -> str:
    wall = [w for w, _ in runs]
    cpu = [c for _, c in runs]
    return (
        f"{statistics.median(wall):.2f} s ({min(wall):.2f}–{max(wall):.2f}) | "
        f"{statistics.median(cpu):.2f} s ({min(cpu):.2f}–{max(cpu):.2f})"
    )


def phases(root: Path, out: Path) -> dict[str, float]:
    code = (
        "import json, sys; from pathlib import Path; from memkit.config import load_config; "
        "from memkit.site.build import build_site; r = Path(sys.argv[1]); "
        "s = build_site(r, Path(sys.argv[2]), load_config(r)); print(json.dumps(s.seconds))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(root), str(out)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(done.stdout)
    return result


def size_of(folder: Path) -> tuple[float, float, float, int]:
    """MB of the whole site, of the search page's documents, of the postings; files."""
    files = [p for p in folder.rglob("*") if p.is_file()]
    total = sum(p.stat().st_size for p in files) / 1e6
    index = (folder / "assets/search-index.js").stat().st_size / 1e6
    shards = sum(p.stat().st_size for p in (folder / "assets/search").glob("*.js")) / 1e6
    return total, index, shards, len(files)


def bench(n: int, corpus: Corpus, runs: int, work: Path) -> None:
    root = work / f"repo-{n}"
    paths = make_repo(root, n, corpus)
    timed(root, "validate")  # warm the file cache, as every measured run finds it
    first: list[tuple[float, float]] = []
    again: list[tuple[float, float]] = []
    changed: list[tuple[float, float]] = []
    validate: list[tuple[float, float]] = []
    for run in range(runs):
        out = work / f"out-{n}-{run}"
        validate.append(timed(root, "validate"))
        (root / ".memkit/site-cache.json").unlink(missing_ok=True)  # as in CI's clone
        first.append(timed(root, "site", "--out", str(out)))
        again.append(timed(root, "site", "--out", str(out)))
        for rel in paths[run * 10 : run * 10 + 10]:
            path = root / rel
            path.write_text(path.read_text(encoding="utf-8") + f"\n- edit {run}\n", "utf-8")
        changed.append(timed(root, "site", "--out", str(out)))
    (root / ".memkit/site-cache.json").unlink(missing_ok=True)  # a first build: no cache
    split = phases(root, work / f"out-{n}-phases")
    total, index, shards, files = size_of(work / f"out-{n}-0")
    print(f"\n{n:,} atoms ({runs} runs, fresh processes)")
    print("| command | wall, median (range) | CPU, median (range) |")
    print("|---|---|---|")
    print(f"| `memkit validate` (the floor: every atom through admission) | {summary(validate)} |")
    print(f"| `memkit site`, first build | {summary(first)} |")
    print(f"| `memkit site`, nothing changed | {summary(again)} |")
    print(f"| `memkit site`, 10 atoms changed | {summary(changed)} |")
    for name, runs_of in (("first build", first), ("nothing changed", again)):
        wall = statistics.median(w for w, _ in runs_of) / statistics.median(w for w, _ in validate)
        cpu = statistics.median(c for _, c in runs_of) / statistics.median(c for _, c in validate)
        print(f"{name} / validate: wall {wall:.2f}×, CPU {cpu:.2f}×")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    print(
        "phases of a first build (in process): "
        + ", ".join(f"{k} {v:.2f} s" for k, v in split.items())
    )
    print(
        f"output: {files:,} files, {total:.1f} MB; search: documents {index:.1f} MB, "
        f"postings {shards:.1f} MB in shards"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--data", help="folder with scifact/ and cmrc2018/ (BEIR layout)")
    parser.add_argument("--work", type=Path, help="keep the repositories here")
    args = parser.parse_args()
    data = data_dir(args.data)
    if data is None:
        print("public data sets not found (pass --data): no real-size atoms", file=sys.stderr)
        return 1
    corpus = Corpus(data)
    work = args.work or Path(tempfile.mkdtemp(prefix="memkit-site-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        for n in (int(s) for s in args.sizes.split(",")):
            bench(n, corpus, args.runs, work)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
