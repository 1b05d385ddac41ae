"""Speed at real atom sizes, 10,000 to 100,000 atoms (issue 18), side by side with an older
memkit when --before is given.

    python benchmarks/scale_bench.py [--before DIR] [--work DIR] [--runs 5] [--hook-runs 40]

--before DIR: a folder holding an older memkit package (`git archive <commit> memkit | tar -x
-C DIR`); every command is then run a second time with PYTHONPATH=DIR, interleaved with this
memkit's, each in its own clone and its own HOME (so its own per-user model cache). The
repositories hold atoms built from SciFact and CMRC2018, read from ../shared/data/ or --data
and never committed; without them there is nothing to measure (the benchmark says so and
stops). `--corpus realtext` (the default, issue 33; `benchmarks/realtext.py`): every atom its
own stretch of text, 0.3-3 KB, English and Chinese mixed; `--corpus realsize` (issue 18;
`benchmarks/realsize.py`): real lengths around cycling documents. --work keeps the
repositories between runs (building 100,000 atoms and their clones takes minutes).

Measured: `memkit index --full` with the model cache warm, a fresh clone's first `memkit
index` (no .memkit; once also with the per-user model cache empty) (10k; 50k and 100k
once), an incremental
refresh after 10 changed atoms and a no-op refresh (`memkit index --quiet`, as the git hooks
run it), whole-repository `memkit validate` (10k), fresh `memkit search` (50k),
the index opened in a fresh process, in full and from the column cache, the
UserPromptSubmit hook through the warm engine and the engine's memory (100k). Fresh-process
times are interleaved with `python -c pass` and `python -c "import numpy, tantivy,
tokenizers"` (the imports a refresh needs).
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

from _common import PYTHON, commit_all, data_dir, p50_p95
from realsize import Corpus, distribution
from realsize import write as write_realsize
from realtext import Texts, describe
from realtext import write as write_realtext

HOOK = str(Path(PYTHON).parent / "memkit-hook")
SIZES = [10_000, 50_000, 100_000]
IMPORTS = "import numpy, tantivy, tokenizers"


def say(*parts: object) -> None:
    print(*parts, file=sys.stderr, flush=True)


def load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


class Source:
    """The atoms measured: `realtext` (issue 33: every atom its own stretch of public text)
    or `realsize` (issue 18: real lengths around cycling documents)."""

    def __init__(self, name: str, data: Path) -> None:
        self.name = name
        self.label = {"realtext": "real-text", "realsize": "real-size"}[name]
        self.texts = Texts(data) if name == "realtext" else None
        self.corpus = Corpus(data) if name == "realsize" else None

    def write(self, repo: Path, n: int) -> str:
        if self.texts is not None:
            sizes, reused = write_realtext(repo, n, self.texts)
            return describe(sizes, reused)
        assert self.corpus is not None
        return distribution(write_realsize(repo, n, self.corpus))


class Variant:
    def __init__(self, name: str, tree: Path | None, work: Path) -> None:
        self.name = name
        home = work / ("home" if name == "this memkit" else "home-before")  # a model cache each
        home.mkdir(parents=True, exist_ok=True)
        self.model_cache = home / ".cache" / "memkit"
        self.env = {
            **os.environ,
            "HOME": str(home),
            "MEMKIT_LOG_DIR": str(home / "logs"),
            "MEMKIT_NO_ENGINE": "1",
        }
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: byte-compiled
        for var in ("XDG_CACHE_HOME", "MEMKIT_MODEL_CACHE"):
            self.env.pop(var, None)  # the per-user cache under this HOME
        if tree is not None:
            self.env["PYTHONPATH"] = str(tree)

    def run(self, args: list[str], cwd: Path) -> tuple[float, float]:
        """(wall, CPU) seconds of `python -m memkit ARGS`, children's CPU included."""
        return timed([PYTHON, "-m", "memkit", *args], cwd, self.env)


def timed(
    argv: list[str], cwd: Path, env: dict[str, str], stdin: str = "", ok: tuple[int, ...] = (0, 1)
) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(
        argv, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode not in ok:
        raise RuntimeError(f"{argv[:5]} exited {result.returncode}: {result.stderr[-800:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def base_repo(work: Path, n: int, corpus: Source) -> Path:
    repo = work / (f"r{n}" if corpus.name == "realsize" else f"{corpus.name}{n}")
    if not (repo / ".bench-ready").is_file():
        shutil.rmtree(repo, ignore_errors=True)
        repo.mkdir(parents=True)
        sizes = corpus.write(repo, n)
        say(f"writing {n:,} atoms:", sizes)
        commit_all(repo)
        (repo / ".bench-ready").write_text(sizes, encoding="utf-8")
    return repo


def clone(base: Path, work: Path, name: str) -> Path:
    target = work / name
    if not target.is_dir():
        subprocess.run(["git", "clone", "-q", str(base), str(target)], check=True)
    return target


def table(title: str, variants: list[Variant], rows: list[tuple[str, list[str]]]) -> list[str]:
    """A markdown table: one column per variant, a row per (label, one cell per variant)."""
    out = [f"| {title} | " + " | ".join(v.name for v in variants) + " |"]
    out.append("|---|" + "---|" * len(variants))
    out += [
        f"| {label} | " + " | ".join(cells) + " |" + " |" * (len(variants) - len(cells))
        for label, cells in rows
    ]
    return out


def ms(values: list[float]) -> str:
    p50, p95 = p50_p95([v * 1000 for v in values])
    return f"{p50:.0f} / {p95:.0f} ms"


def seconds(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} s" + (
        f" ({min(values):.2f}–{max(values):.2f})" if len(values) > 1 else ""
    )


def small_sizes(
    args: argparse.Namespace, variants: list[Variant], work: Path, corpus: Source
) -> list[str]:
    n = SIZES[0]
    base = base_repo(work, n, corpus)
    out = [f"{n:,} atoms: {(base / '.bench-ready').read_text(encoding='utf-8')}", ""]
    clones = {v.name: clone(base, work, f"{v.name}-{corpus.name}-{n}") for v in variants}
    fresh: dict[str, list[float]] = {v.name: [] for v in variants}
    fresh_cpu: dict[str, list[float]] = {v.name: [] for v in variants}
    full: dict[str, list[float]] = {v.name: [] for v in variants}
    full_cpu: dict[str, list[float]] = {v.name: [] for v in variants}
    cold: dict[str, list[float]] = {v.name: [] for v in variants}
    for run in range(args.runs):
        for v in variants:
            if run == 0:  # once: a machine whose per-user model cache is empty
                shutil.rmtree(v.model_cache, ignore_errors=True)
                shutil.rmtree(clones[v.name] / ".memkit", ignore_errors=True)
                cold[v.name].append(v.run(["index", "--repo", str(clones[v.name])], work)[0])
            shutil.rmtree(clones[v.name] / ".memkit", ignore_errors=True)  # a fresh clone
            wall, cpu = v.run(["index", "--repo", str(clones[v.name])], work)
            fresh[v.name].append(wall)
            fresh_cpu[v.name].append(cpu)
            wall, cpu = v.run(["index", "--full", "--repo", str(clones[v.name])], work)
            full[v.name].append(wall)
            full_cpu[v.name].append(cpu)
        say(
            f"index run {run + 1}: "
            + ", ".join(
                f"{k} fresh {fresh[k][-1]:.2f} s, --full {w[-1]:.2f} s" for k, w in full.items()
            )
        )
    env = variants[0].env
    rows: dict[str, list[float]] = {
        k: [] for k in ("pass", "imports", *(f"inc {v.name}" for v in variants))
    }
    rows.update({f"noop {v.name}": [] for v in variants})
    rows.update({f"validate {v.name}": [] for v in variants})
    rows.update({f"validate fresh {v.name}": [] for v in variants})
    for run in range(args.refreshes or args.runs * 3):
        rows["pass"].append(timed([PYTHON, "-c", "pass"], work, env)[0])
        rows["imports"].append(timed([PYTHON, "-c", IMPORTS], work, env)[0])
        for v in variants:
            repo = clones[v.name]
            for k in range(10):  # 10 changed atoms, other ones each run
                path = sorted((repo / "shared").glob("*.md"))[(run * 10 + k) % (n // 5)]
                with path.open("a", encoding="utf-8") as fh:
                    fh.write(f"- Changed in run {run}.\n")
            rows[f"inc {v.name}"].append(v.run(["index", "--quiet", "--repo", str(repo)], work)[0])
            rows[f"noop {v.name}"].append(v.run(["index", "--quiet", "--repo", str(repo)], work)[0])
    for _run in range(args.runs):
        for v in variants:
            repo = clones[v.name]
            rows[f"validate {v.name}"].append(v.run(["validate", "--repo", str(repo)], work)[0])
    for _run in range(args.runs):
        for v in variants:
            repo = clones[v.name]
            shutil.rmtree(repo / ".memkit", ignore_errors=True)  # nothing cached: a fresh clone
            rows[f"validate fresh {v.name}"].append(
                v.run(["validate", "--repo", str(repo)], work)[0]
            )
    pass_p50 = statistics.median(rows["pass"])
    imports_p50 = statistics.median(rows["imports"])
    each = variants
    out += table(
        f"{n:,} {corpus.label} atoms",
        variants,
        [
            (
                "`memkit index --full`, model cache warm (wall; range)",
                [seconds(full[v.name]) for v in each],
            ),
            ("the same, CPU (all processes)", [seconds(full_cpu[v.name]) for v in each]),
            (
                "first `memkit index` of a fresh clone (no .memkit; wall; range)",
                [seconds(fresh[v.name]) for v in each],
            ),
            ("the same, CPU (all processes)", [seconds(fresh_cpu[v.name]) for v in each]),
            (
                "the same with the per-user model cache empty too (once)",
                [seconds(cold[v.name]) for v in each],
            ),
            (
                "incremental, 10 changed atoms (`--quiet`), p50 / p95",
                [ms(rows[f"inc {v.name}"]) for v in each],
            ),
            (
                "the same, beyond `python -c pass` + imports, p50",
                [
                    f"{(statistics.median(rows[f'inc {v.name}']) - imports_p50) * 1000:.0f} ms"
                    for v in each
                ],
            ),
            (
                f"the same, slowest of {len(rows['pass'])} / how many over 0.6 s",
                [
                    f"{max(rows[f'inc {v.name}']) * 1000:.0f} ms / "
                    f"{sum(1 for t in rows[f'inc {v.name}'] if t > 0.6)}"
                    for v in each
                ],
            ),
            ("no-op refresh (`--quiet`), p50 / p95", [ms(rows[f"noop {v.name}"]) for v in each]),
            (
                "the same, beyond `python -c pass`, p50",
                [
                    f"{(statistics.median(rows[f'noop {v.name}']) - pass_p50) * 1000:.0f} ms"
                    for v in each
                ],
            ),
            (
                "whole-repository `memkit validate`, after the builds (wall; range)",
                [seconds(rows[f"validate {v.name}"]) for v in each],
            ),
            (
                "the same in a fresh clone (no .memkit; wall; range)",
                [seconds(rows[f"validate fresh {v.name}"]) for v in each],
            ),
            (
                f'`python -c pass` / `python -c "{IMPORTS}"`, p50 / p95',
                [f"{ms(rows['pass'])} / {ms(rows['imports'])}"],
            ),
        ],
    )
    return out


def built(v: Variant, base: Path, work: Path, n: int, corpus: Source) -> tuple[Path, float]:
    repo = clone(
        base, work, f"{v.name}-{n}" if corpus.name == "realsize" else f"{v.name}-{corpus.name}-{n}"
    )
    marker = repo / ".memkit" / "bench-built"
    if marker.is_file():
        return repo, float(marker.read_text(encoding="utf-8"))
    shutil.rmtree(repo / ".memkit", ignore_errors=True)  # a full build, as a fresh clone's
    wall, _ = v.run(["index", "--repo", str(repo)], work)
    marker.write_text(f"{wall}", encoding="utf-8")
    say(f"{v.name}: full index of {n:,} atoms in {wall:.1f} s")
    return repo, wall


def search_50k(
    args: argparse.Namespace, variants: list[Variant], work: Path, corpus: Source
) -> list[str]:
    n = SIZES[1]
    base = base_repo(work, n, corpus)
    repos = {v.name: built(v, base, work, n, corpus) for v in variants}
    times: dict[str, list[float]] = {"pass": [], **{v.name: [] for v in variants}}
    words = ["rotate the cache", "heartbeat interval", "白质 发育", "deploy migration", "心跳"]
    for v in variants:  # the column caches written, as after a first search
        v.run(["search", "warm up", "--repo", str(repos[v.name][0])], work)
    for run in range(args.search_runs):
        times["pass"].append(timed([PYTHON, "-c", "pass"], work, variants[0].env)[0])
        for v in variants:
            query = f"{words[run % len(words)]} {run}"
            times[v.name].append(v.run(["search", query, "--repo", str(repos[v.name][0])], work)[0])
    base_p50 = statistics.median(times["pass"])
    rows = [
        ("full `memkit index` (one run)", [f"{repos[v.name][1]:.1f} s" for v in variants]),
        ("fresh `memkit search`, p50 / p95", [ms(times[v.name]) for v in variants]),
        (
            "ratio to `python -c pass` p50",
            [f"{statistics.median(times[v.name]) / base_p50:.1f}×" for v in variants],
        ),
        ("`python -c pass`, p50 / p95", [ms(times["pass"])]),
    ]
    head = [f"{n:,} atoms: {(base / '.bench-ready').read_text(encoding='utf-8')}", ""]
    return head + table(f"{n:,} {corpus.label} atoms", variants, rows)


def rss(pid: int) -> tuple[int, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]) // 1024, int(fields["VmHWM"].split()[0]) // 1024


def _warm(repo: Path) -> None:
    """Until the engine answers prompts at once: it opens the index (checking every file's
    checksum) and loads the model first. A hook that waited too long meanwhile marked it
    hung (hooks then answer in-process for 30 s): the mark is removed before measuring."""
    from memkit.recall.client import ask

    for i in range(200):
        payload = json.dumps({"cwd": str(repo), "prompt": f"warm up {i}", "session_id": "warm"})
        started = time.perf_counter()
        try:
            ask(repo, "user-prompt-submit", payload, [], 60.0)
        except OSError:
            time.sleep(0.5)
            continue
        if time.perf_counter() - started < 0.1:
            break
    (repo / ".memkit" / "engine.hung").unlink(missing_ok=True)
    time.sleep(2)


def engine_100k(
    args: argparse.Namespace, variants: list[Variant], work: Path, corpus: Source
) -> list[str]:
    n = SIZES[2]
    base = base_repo(work, n, corpus)
    repos = {v.name: built(v, base, work, n, corpus) for v in variants}
    opened = opens(args, variants, {v.name: repos[v.name][0] for v in variants}, work)
    engines = {}
    for v in variants:
        repo = repos[v.name][0]
        env = {**v.env, "MEMKIT_NO_ENGINE": "0"}
        engines[v.name] = subprocess.Popen(
            [PYTHON, "-m", "memkit", "serve", "--idle", "900", "--repo", str(repo)],
            cwd=work,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    times: dict[str, list[float]] = {"pass": [], **{v.name: [] for v in variants}}
    try:
        for v in variants:
            repo = repos[v.name][0]
            while not (repo / ".memkit" / "engine.sock").exists():
                time.sleep(0.2)
            _warm(repo)
        for run in range(args.hook_runs):
            times["pass"].append(timed([PYTHON, "-c", "pass"], work, variants[0].env)[0])
            for v in variants:
                repo = repos[v.name][0]
                payload = {
                    "cwd": str(repo),
                    "prompt": f"how often should we rotate the cache before the queue {run}?",
                    "session_id": f"{v.name}{run}",
                }
                env = {**v.env, "MEMKIT_NO_ENGINE": "0"}
                times[v.name].append(
                    timed(
                        [HOOK, "user-prompt-submit"], repo, env, stdin=json.dumps(payload), ok=(0,)
                    )[0]
                )
        memory = {v.name: rss(engines[v.name].pid) for v in variants}
    finally:
        for proc in engines.values():
            proc.terminate()
            proc.wait(timeout=60)
    base_p50, base_p95 = p50_p95(times["pass"])
    ratios = {
        v.name: [a / b for a, b in zip(p50_p95(times[v.name]), (base_p50, base_p95), strict=True)]
        for v in variants
    }
    rows = [
        ("full `memkit index` (one run)", [f"{repos[v.name][1]:.1f} s" for v in variants]),
        (
            f"the index opened in full (`open_index`, fresh process), p50 / p95 of {args.runs * 5}",
            [ms(opened[v.name][0]) for v in variants],
        ),
        (
            "the same from the column cache (`open_light`: a hook without the engine)",
            [ms(opened[v.name][1]) for v in variants],
        ),
        ("UserPromptSubmit hook, warm engine, p50 / p95", [ms(times[v.name]) for v in variants]),
        (
            "ratio to `python -c pass` p50 / p95",
            [f"{ratios[v.name][0]:.1f}× / {ratios[v.name][1]:.1f}×" for v in variants],
        ),
        (
            "engine RSS after the prompts / peak",
            [f"{memory[v.name][0]} / {memory[v.name][1]} MB" for v in variants],
        ),
        ("`python -c pass`, p50 / p95", [ms(times["pass"])]),
    ]
    head = [f"{n:,} atoms: {(base / '.bench-ready').read_text(encoding='utf-8')}", ""]
    return head + table(f"{n:,} {corpus.label} atoms", variants, rows)


OPEN = """
import sys, time
from pathlib import Path
from memkit.index.lite import open_light
from memkit.index.search import open_index
repo = Path(sys.argv[1])
started = time.perf_counter()
open_index(repo)
middle = time.perf_counter()
open_light(repo)
print(middle - started, time.perf_counter() - middle)
"""


def opens(
    args: argparse.Namespace, variants: list[Variant], repos: dict[str, Path], work: Path
) -> dict[str, tuple[list[float], list[float]]]:
    """Seconds to open the index in a fresh process, in full and from the column cache
    (written by a first open), interleaved."""
    out: dict[str, tuple[list[float], list[float]]] = {v.name: ([], []) for v in variants}
    for run in range(args.runs * 5 + 1):
        for v in variants:
            argv = [PYTHON, "-c", OPEN, str(repos[v.name])]
            done = subprocess.run(
                argv, cwd=work, env=v.env, capture_output=True, text=True, check=True
            )
            if run:  # the first writes the column cache
                full, light = map(float, done.stdout.split())
                out[v.name][0].append(full)
                out[v.name][1].append(light)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", help="folder with scifact/ and cmrc2018/ (BEIR layout)")
    parser.add_argument("--before", type=Path, help="a folder holding an older memkit package")
    parser.add_argument(
        "--this",
        type=Path,
        help="a folder holding this memkit's package (`git archive HEAD memkit`), run instead "
        "of the installed one: the checkout can change while the benchmark runs",
    )
    parser.add_argument("--work", type=Path, help="keep the repositories here between runs")
    parser.add_argument("--runs", type=int, default=5, help="full builds and validations")
    parser.add_argument(
        "--refreshes", type=int, default=0, help="incremental refreshes (default: 3 x --runs)"
    )
    parser.add_argument("--search-runs", type=int, default=30)
    parser.add_argument("--hook-runs", type=int, default=40)
    parser.add_argument("--only", default="10k,50k,100k", help="which parts to run")
    parser.add_argument(
        "--corpus",
        choices=("realtext", "realsize"),
        default="realtext",
        help="realtext: every atom its own stretch of text (issue 33); realsize: issue 18's",
    )
    parser.add_argument("--scale", type=float, default=1.0, help="sizes x this (a smoke run)")
    args = parser.parse_args()
    SIZES[:] = [max(50, int(n * args.scale)) for n in SIZES]
    data = data_dir(args.data)
    if data is None:
        say("public data sets not found (pass --data): no real-size atoms to measure")
        return 1
    corpus = Source(args.corpus, data)
    import memkit

    trees = (args.this and args.this / "memkit", args.before and args.before / "memkit")
    for tree in (*trees, Path(memkit.__file__).parent):
        if tree:
            subprocess.run([PYTHON, "-m", "compileall", "-q", str(tree)], check=True)
    work = args.work or Path(tempfile.mkdtemp(prefix="memkit-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    variants = [Variant("this memkit", args.this and args.this.resolve(), work)]
    if args.before:
        variants.append(Variant("before", args.before.resolve(), work))
    only = set(args.only.split(","))
    out = [f"load average at the start: {load()}", ""]
    try:
        if "10k" in only:
            out += small_sizes(args, variants, work, corpus) + [""]
            say("\n".join(out))
        if "50k" in only:
            out += search_50k(args, variants, work, corpus) + [""]
            say("\n".join(out[-12:]))
        if "100k" in only:
            out += engine_100k(args, variants, work, corpus) + [""]
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    out.append(f"load average at the end: {load()}")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
