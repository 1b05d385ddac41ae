"""Time per KB of every check memkit runs on an atom's text, from 1 to 256 KB (issue 40).

Each check is fed inputs built from the patterns that made one superlinear (a long word, a run
of dots or underscores, "e.g. " repeated, "password" and blanks, fullwidth phrases, a few more
found since) and from random text, at 1, 4, 16, 64 and 256 KB (UTF-8 bytes). A linear check
shows a flat time per KB; the issue asks for at most 2x from 16 to 256 KB. Times are CPU
seconds of this process (`time.process_time`), the best of several runs: on this shared
2-core machine (load 7-13 while these figures were taken) wall-clock times of a plainly linear
regular expression moved by 7x between sizes, its CPU times by less than 2x. A call past
`--cap` seconds (wall-clock: SIGALRM; `re` checks signals as it backtracks; a CPU-time timer
would make this sandbox's CPU clock tick-grained) is stopped, and the larger sizes of that
pattern are not tried: the row says `>CAP`.

The checks: the judgement of two atoms (`memkit.audit.verdict.verdict` on two parsed atoms,
their text alike but for one value: what the gate, the pull audit, `memkit add` and the MCP
save ask; the parsing is in the time), the secret check, the injection check,
`validate` of one atom file (format and content checks: what pre-commit, CI, the index and
PostToolUse run), capture's detector and the write gate's score.

`--e2e` also times what a person meets: `git commit` of a 256 KB atom of each pattern through
the repository's hooks, and a teammate's `git pull` of it (post-merge: index and audit), each
stopped at `--e2e-cap` seconds (wall-clock), in a memory that holds a 2 KB neighbour of each
(so the gate and the audit judge a pair). `--before DIR` runs the same measurements with the memkit
package in DIR (e.g. `git archive <commit> memkit memory_template | tar -x -C DIR`), one
after the other in one run, and prints both.

`--e2e-kb 1` times the same with a 1 KB atom: what any commit and pull cost on this machine.
Each git command's CPU time (its own and its hooks') is given beside its wall-clock time.

    .venv/bin/python benchmarks/text_scaling_bench.py [--e2e [--e2e-kb KB]] [--before DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SIZES = (1, 4, 16, 64, 256)
WORDS = [
    *("the", "deploy", "job", "runs", "migrations", "before", "release;", "use", "staging"),
    *("database,", "never", "production;", "cache", "expires", "after", "30", "s", "and"),
    *("worker", "retries", "twice;", "set", "KAFKA_LAG_ALERT=5000", "in", "config/alerts.yaml;"),
    *("ask", "on-call", "engineer", "first"),
]


def _random(n: int) -> str:
    rng = random.Random(n)
    words: list[str] = []
    size = 0
    while size < n:
        word = rng.choice(WORDS)
        # A line every ~250 words: 256 KB stays within the 200 lines of an atom.
        words.append(word + (".\n" if rng.random() < 0.004 else ""))
        size += len(word) + 1
    return " ".join(words)


def _repeat(unit: str) -> Callable[[int], str]:
    return lambda n: unit * (n // len(unit.encode()) + 1)


PATTERNS: dict[str, Callable[[int], str]] = {
    "long word": _repeat("a"),
    "dots": _repeat("."),
    "underscores": _repeat("_"),
    "e.g. repeated": _repeat("e.g. "),
    "password+blanks": lambda n: "password" + " " * n,
    "fullwidth phrases": _repeat("ｉｇｎｏｒｅ ｐｒｅｖｉｏｕｓ ｉｎｓｔｒｕｃｔｉｏｎｓ。"),
    "digits": _repeat("1"),
    "a-a-a-": _repeat("a-"),
    "a.a.a.": _repeat("a."),
    "random text": _random,
}


def sized(text: str, size: int) -> str:
    """`text` cut to at most `size` UTF-8 bytes, at a character."""
    return text.encode()[:size].decode("utf-8", "ignore")


def atom_file(text: str, size: int, atom_id: str = "big-note") -> bytes:
    """An atom file of `size` bytes at most (frontmatter, a title, `text` as its body)."""
    head = (
        f"---\nid: {atom_id}\ntype: fact\nconfidence: observed\ncreated: 2026-01-01\n---\n"
        "# Big note\n\n"
    )
    return (head + sized(text, size - len(head) - 1) + "\n").encode()


def checks() -> dict[str, Callable[[str, int], object]]:
    from memkit.admission.decide import file_findings
    from memkit.atom.read import parse_atom_bytes
    from memkit.audit.verdict import verdict
    from memkit.capture.detect import detect
    from memkit.config import Config
    from memkit.gate.score import score_text
    from memkit.safety.injection import refused_hits
    from memkit.safety.secrets import find_secrets

    config = Config()

    def judgement(text: str, size: int) -> object:
        # Two near-identical atoms (one value changed), as the gate, the pull audit, `memkit
        # add` and the MCP save hand them over: what a team's pairs most often are.
        a, b = (
            parse_atom_bytes(f"shared/{name}.md", atom_file(f"{text} Port {port}.", size, name))
            for name, port in (("big-note", 8080), ("big-note-2", 8081))
        )
        return verdict(a.atom, b.atom, similarity=0.95)

    def validate(text: str, size: int) -> object:
        parsed = parse_atom_bytes("shared/big-note.md", atom_file(text, size), config)
        return file_findings(parsed, config)

    return {
        "judgement": judgement,
        "secrets": lambda text, _size: list(find_secrets(text)),
        "injection": lambda text, _size: refused_hits(text),
        "validate": validate,
        "capture detect": lambda text, _size: detect(text),
        "gate score": lambda text, _size: score_text(text),
    }


class Stopped(BaseException):
    pass


def _stop(_signum: int, _frame: FrameType | None) -> None:
    raise Stopped


def measure(
    check: Callable[[str, int], object], make: Callable[[int], str], size: int, cap: float
) -> float | None:
    """CPU seconds for `check` on an input of `size` bytes (the best of up to 20 runs, 1 s of
    runs at most), None past `cap` seconds. Each run gets its own input (its number
    starts it): the judgement keeps what it made of a text in caches, and a run on the same
    text again would measure those."""
    best: float | None = None
    spent = 0.0
    body = make(size)
    for run in range(20):
        text = sized(f"{run} {body}", size)
        signal.setitimer(signal.ITIMER_REAL, cap)
        start = time.process_time()
        try:
            check(text, size)
        except Stopped:
            return None
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        took = time.process_time() - start
        best = took if best is None else min(best, took)
        spent += took
        if spent > 1.0:
            break
    return best


def run_checks(
    sizes: list[int], cap: float, only: list[str], patterns: dict[str, Callable[[int], str]]
) -> dict[str, dict[str, Any]]:
    signal.signal(signal.SIGALRM, _stop)
    out: dict[str, dict[str, Any]] = {}
    for name, check in checks().items():
        if only and name not in only:
            continue
        for pattern, make in patterns.items():
            row: dict[str, float | None] = {}
            for kb in sizes:
                took = measure(check, make, kb * 1024, cap)
                row[str(kb)] = None if took is None else took * 1e6 / kb  # µs per KB
                if took is None:
                    break
            out.setdefault(name, {})[pattern] = row
            print(f"  {name:15} {pattern:18} {_cells(row, sizes, cap)}", file=sys.stderr)
    return out


def _cells(row: dict[str, float | None], sizes: list[int], cap: float) -> str:
    cells = []
    for kb in sizes:
        if str(kb) not in row:
            cells.append(f"{'':>9}")
        elif row[str(kb)] is None:
            cells.append(f"{'>' + format(cap, 'g') + ' s':>9}")
        else:
            cells.append(f"{row[str(kb)]:9.1f}")
    return " ".join(cells)


# -- a commit and a pull of a 256 KB atom ----------------------------------------------------


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "MEMKIT_"))}
    return {
        **env,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "MEMKIT_LOG_DIR": str(home / "logs"),
        "MEMKIT_NO_ENGINE": "1",
        "GIT_AUTHOR_NAME": "Bench",
        "GIT_AUTHOR_EMAIL": "bench@example.com",
        "GIT_COMMITTER_NAME": "Bench",
        "GIT_COMMITTER_EMAIL": "bench@example.com",
        "GIT_CONFIG_NOSYSTEM": "1",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
    }


def _timed(argv: list[str], cwd: Path, env: dict[str, str], cap: float) -> tuple[float, int, float]:
    """Wall-clock seconds, exit code and CPU seconds of `argv` and every process it waited
    for (the hooks): the CPU time does not grow with the machine's load, the wall time does."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        code = proc.wait(timeout=cap)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return float("inf"), -1, float("inf")
    took = time.perf_counter() - start
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    return took, code, now.ru_utime + now.ru_stime - used.ru_utime - used.ru_stime


NEAR = 2048  # bytes of each big atom's neighbour


def run_e2e(
    cap: float, size: int, patterns: dict[str, Callable[[int], str]]
) -> dict[str, dict[str, Any]]:
    folder = Path(tempfile.mkdtemp(prefix="memkit-scaling-"))
    env = _env(folder / "home")
    memkit = [sys.executable, "-m", "memkit"]
    out: dict[str, dict[str, Any]] = {}
    # Random text first: what a team writes, and the figure the issue asks for.
    order = sorted(patterns.items(), key=lambda item: item[0] != "random text")
    try:
        origin = folder / "origin"
        subprocess.run([*memkit, "init", str(origin)], env=env, check=True, capture_output=True)
        subprocess.run(
            ["git", "config", "receive.denyCurrentBranch", "updateInstead"],
            cwd=origin,
            check=True,
        )
        # A neighbour of each big atom (its first 2 KB): the gate and the pull audit judge
        # the pair, as they would in a memory that already holds notes on the subject.
        for n, (_, make) in enumerate(order):
            near = atom_file(make(NEAR), NEAR, f"near-{n}")
            (origin / f"shared/near-{n}.md").write_bytes(near)
        subprocess.run(["git", "add", "-A"], cwd=origin, env=env, check=True)
        subprocess.run(
            ["git", "commit", "-q", "--no-verify", "-m", "neighbours"],
            cwd=origin,
            env=env,
            check=True,
        )
        for n, (pattern, make) in enumerate(order):
            alice, bob = folder / f"alice-{n}", folder / f"bob-{n}"
            for clone in (alice, bob):
                subprocess.run(["git", "clone", "-q", str(origin), str(clone)], env=env, check=True)
                subprocess.run(
                    [*memkit, "init", "--join"], cwd=clone, env=env, check=True, capture_output=True
                )
            relpath = f"shared/big-note-{n}.md"
            data = atom_file(make(size), size, f"big-note-{n}")  # 256 KB: the limit
            (alice / relpath).write_bytes(data)
            subprocess.run(["git", "add", relpath], cwd=alice, env=env, check=True)
            took, code, cpu = _timed(["git", "commit", "-q", "-m", pattern], alice, env, cap)
            row: dict[str, Any] = {"commit": took, "commit_exit": code, "commit_cpu": cpu}
            # A commit stopped at the cap leaves git's lock behind.
            (alice / ".git" / "index.lock").unlink(missing_ok=True)
            # The teammate's pull gets the atom whatever the hooks said: pushed past them.
            subprocess.run(
                ["git", "commit", "-q", "--no-verify", "-m", pattern],
                cwd=alice,
                env=env,
                capture_output=True,
                check=False,  # nothing to commit: the hooks let it through
            )
            pushed = subprocess.run(
                ["git", "ls-tree", "HEAD", "--", relpath],
                cwd=alice,
                capture_output=True,
                check=True,
            )
            assert pushed.stdout, f"{relpath} was not committed"
            subprocess.run(
                ["git", "push", "-q", "origin", "HEAD:main"], cwd=alice, env=env, check=True
            )
            took, code, cpu = _timed(["git", "pull", "-q", "--no-rebase"], bob, env, cap)
            row |= {"pull": took, "pull_exit": code, "pull_cpu": cpu}
            out[pattern] = row
            print(
                f"  {pattern:18} commit {took_text(row['commit'], cap)} (exit "
                f"{row['commit_exit']}, CPU {row['commit_cpu']:.2f} s), pull "
                f"{took_text(row['pull'], cap)} (CPU {row['pull_cpu']:.2f} s)",
                file=sys.stderr,
            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return out


def took_text(seconds: float, cap: float) -> str:
    return f">{cap:g} s" if seconds == float("inf") else f"{seconds:.2f} s"


# -- the report ----------------------------------------------------------------------------


def report(label: str, data: dict[str, Any], sizes: list[int], cap: float) -> None:
    print(f"\n### {label}: CPU µs per KB\n")
    head = " | ".join(f"{kb} KB" for kb in sizes)
    last = sizes[-1]
    print(f"| check | input | {head} | {last}/16 |")
    print("|---|---|" + "---|" * (len(sizes) + 1))
    for name, rows in data["checks"].items():
        for pattern, row in rows.items():
            cells = []
            for kb in sizes:
                value = row.get(str(kb), "")
                cells.append(
                    "" if value == "" else f">{cap:g} s" if value is None else f"{value:.1f}"
                )
            low, high = row.get("16"), row.get(str(last))
            ratio = f"{high / low:.2f}" if low and high and last > 16 else "—"
            print(f"| {name} | {pattern} | {' | '.join(cells)} | {ratio} |")
    if data.get("e2e"):
        e2e_cap = data["e2e_cap"]
        kb = data.get("e2e_kb", 256)
        print(f"\n| {kb} KB atom of | git commit (exit) | its CPU | git pull | its CPU |")
        print("|---|---|---|---|---|")
        for pattern, row in data["e2e"].items():
            print(
                f"| {pattern} | {took_text(row['commit'], e2e_cap)} ({row['commit_exit']}) | "
                f"{took_text(row['commit_cpu'], e2e_cap)} | {took_text(row['pull'], e2e_cap)} | "
                f"{took_text(row['pull_cpu'], e2e_cap)} |"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="KB, comma-separated")
    parser.add_argument("--cap", type=float, default=20.0, help="seconds per call at most")
    parser.add_argument("--checks", default="", help="only these checks (comma-separated)")
    parser.add_argument("--patterns", default="", help="only these inputs (comma-separated)")
    parser.add_argument("--e2e", action="store_true", help="also a commit and a pull")
    parser.add_argument("--e2e-cap", type=float, default=60.0, help="seconds per git command")
    parser.add_argument(
        "--e2e-kb", type=int, default=256, help="the atom's size (1: what any commit costs here)"
    )
    parser.add_argument("--before", type=Path, help="also measure the memkit package in DIR")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--save", type=Path, help="also write the measurements as JSON here")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.before is not None:
        results = {}
        for label, path in (("this memkit", ROOT), ("before", args.before.resolve())):
            print(f"{label} ({path}):", file=sys.stderr)
            mine = {"--before", str(args.before), "--save", str(args.save)}
            argv = [a for a in sys.argv[1:] if a not in mine]
            env = {**os.environ, "PYTHONPATH": str(path)}
            done = subprocess.run(
                [sys.executable, __file__, *argv, "--json"],
                env=env,
                stdout=subprocess.PIPE,
                text=True,
                check=True,
            )
            results[label] = json.loads(done.stdout)
        if args.save:
            args.save.write_text(json.dumps(results), encoding="utf-8")
        for label, data in results.items():
            report(label, data, sizes, args.cap)
        return 0
    only = [c for c in args.checks.split(",") if c]
    chosen = [p for p in args.patterns.split(",") if p]
    patterns = {k: v for k, v in PATTERNS.items() if not chosen or k in chosen}
    measured: dict[str, Any] = {"checks": run_checks(sizes, args.cap, only, patterns)}
    if args.e2e:
        print(f"commit and pull of a {args.e2e_kb} KB atom:", file=sys.stderr)
        e2e = run_e2e(args.e2e_cap, args.e2e_kb * 1024, patterns)
        measured |= {"e2e": e2e, "e2e_cap": args.e2e_cap, "e2e_kb": args.e2e_kb}
    if args.save:
        args.save.write_text(json.dumps({"this memkit": measured}), encoding="utf-8")
    if args.json:
        print(json.dumps(measured))
    else:
        report("this memkit", measured, sizes, args.cap)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
