"""Faults injected into a memory repository, and what the Claude Code hooks do about them.

    python benchmarks/fault_bench.py [--atoms 5000] [--before DIR]

--before DIR runs every scenario a second time, side by side, with the memkit package found
in DIR (e.g. `git archive <older commit> memkit | tar -x -C DIR`), so each figure has the
older code's beside it, measured in the same run on the same machine. Scenarios:

- hung engine: `memkit serve` stopped with SIGSTOP, then 30 concurrent UserPromptSubmit
  hooks and 20 concurrent SessionEnd hooks (Claude Code gives all SessionEnd hooks 1.5 s);
- usage log growth: SessionStart (no engine) over a usage log of 0, 200,000 and 2,000,000 rows
  (written as an older memkit wrote them: nothing folded yet), 3,000 atoms used; and nine
  UserPromptSubmit hooks over 0 and 2,000,000 rows (each records its uses, and folds);
  `--only usage` runs these alone;
- a truncated tantivy `.store`: seconds until a prompt is answered by BM25 again;
- deleted atoms: prompts that would match 100 atoms deleted from the working tree.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import sqlite3
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from _common import PYTHON, write_repo
from index_bench import synthetic

PROMPT = "how often should we rotate the cache before the queue"


def environment(tree: Path | None, home: Path) -> dict[str, str]:
    env = {**os.environ, "HOME": str(home), "MEMKIT_LOG_DIR": str(home / "logs")}
    env["MEMKIT_NO_ENGINE"] = "0"
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    return env


def hook_argv(event: str, root: Path) -> list[str]:
    return [PYTHON, "-m", "memkit.claude.main", event, f"--repo={root}"]


def run_hook(event: str, payload: dict[str, object], root: Path, env: dict[str, str]) -> str:
    return subprocess.run(
        hook_argv(event, root),
        input=json.dumps({"cwd": str(root), **payload}),
        capture_output=True,
        text=True,
        env=env,
        check=False,
        cwd=root,  # never a checkout of memkit: `-m` would import it ahead of --before
    ).stdout


def concurrent(
    n: int, event: str, payload: dict[str, object], root: Path, env: dict[str, str]
) -> list[tuple[float, int, bool]]:
    """(seconds from its own start to its exit, exit code, answered) of `n` hooks started at
    once, each timed by a thread of its own."""
    out: list[tuple[float, int, bool]] = []
    gate = threading.Barrier(n)

    def one(i: int) -> None:
        data = json.dumps({"cwd": str(root), "session_id": f"c{i}", **payload})
        gate.wait()
        started = time.perf_counter()
        result = subprocess.run(
            hook_argv(event, root),
            input=data,
            capture_output=True,
            text=True,
            env=env,
            check=False,
            cwd=root,
        )
        out.append((time.perf_counter() - started, result.returncode, bool(result.stdout)))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return out


def make_repo(base: Path, atoms: int, env: dict[str, str]) -> Path:
    root = base / "repo"
    write_repo(root, synthetic(atoms))
    # --foreground: a first build this large would otherwise go to the background.
    index = [PYTHON, "-m", "memkit", "index", "--quiet", "--foreground"]
    subprocess.run(index, cwd=root, env=env, check=True)
    return root


def hung_engine(root: Path, env: dict[str, str]) -> dict[str, str]:
    engine = subprocess.Popen(
        [PYTHON, "-m", "memkit", "serve", "--idle", "300", "--check-every", "0"],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while not (root / ".memkit" / "engine.sock").exists():
            time.sleep(0.05)
        run_hook("user-prompt-submit", {"session_id": "warm", "prompt": PROMPT}, root, env)
        engine.send_signal(signal.SIGSTOP)
        prompts = concurrent(30, "user-prompt-submit", {"prompt": PROMPT}, root, env)
        ends = concurrent(20, "session-end", {"reason": "other"}, root, env)
    finally:
        engine.send_signal(signal.SIGCONT)
        engine.terminate()
        engine.wait(timeout=60)
    seconds = sorted(s for s, _, _ in prompts)
    return {
        "30 prompts: p50 / max, each from its start": (
            f"{statistics.median(seconds):.2f} / {seconds[-1]:.2f} s"
        ),
        "30 prompts: answered": f"{sum(a for _, _, a in prompts)}/30",
        "30 prompts: exit 0": f"{sum(rc == 0 for _, rc, _ in prompts)}/30",
        "20 SessionEnd: max, each from its start": f"{max(s for s, _, _ in ends):.2f} s",
        "20 SessionEnd: exit 0": f"{sum(rc == 0 for _, rc, _ in ends)}/20",
    }


def fill_usage(root: Path, rows: int) -> None:
    """A usage log of `rows` uses of 3,000 atoms, as an older memkit left it: none folded."""
    db_path = root / ".memkit" / "usage.db"
    for extra in ("", "-wal", "-shm"):
        db_path.with_name(db_path.name + extra).unlink(missing_ok=True)
    for old in db_path.parent.glob("usage.db.damaged-*"):
        old.unlink()
    db = sqlite3.connect(db_path)
    db.executescript(
        "CREATE TABLE uses (atom TEXT NOT NULL, ts REAL NOT NULL, kind TEXT NOT NULL);"
        "CREATE INDEX uses_atom ON uses (atom);"
        "CREATE TABLE given (session TEXT NOT NULL, atom TEXT NOT NULL,"
        " PRIMARY KEY (session, atom));"
        "CREATE TABLE sessions (session TEXT NOT NULL, ts REAL NOT NULL, event TEXT NOT NULL,"
        " detail TEXT);"
    )
    now = time.time()
    db.executemany(
        "INSERT INTO uses VALUES (?, ?, 'inject')",
        ((f"d-syn-{i % 3000}", now - (rows - i) * 30) for i in range(rows)),
    )
    db.commit()
    db.close()


def usage_growth(root: Path, env: dict[str, str], rows: int) -> str:
    fill_usage(root, rows)
    env = {**env, "MEMKIT_NO_ENGINE": "1"}
    times = []
    for n in range(9):
        start = time.perf_counter()
        run_hook("session-start", {"session_id": f"u{n}", "source": "startup"}, root, env)
        times.append(time.perf_counter() - start)
    return f"{times[0]:.2f} s first, {statistics.median(times[1:]):.2f} s after"


def usage_prompts(root: Path, env: dict[str, str], rows: int) -> str:
    """UserPromptSubmit (no engine) over an unfolded log: each prompt records its uses, and
    with them folds what it may of the old rows."""
    fill_usage(root, rows)
    env = {**env, "MEMKIT_NO_ENGINE": "1"}
    times, answered = [], 0
    for n in range(9):
        start = time.perf_counter()
        out = run_hook("user-prompt-submit", {"session_id": f"w{n}", "prompt": PROMPT}, root, env)
        times.append(time.perf_counter() - start)
        answered += bool(out)
    return f"{statistics.median(times):.2f} / {max(times):.2f} s, answered {answered}/9"


def heal_time(root: Path, env: dict[str, str]) -> str:
    gen = root / ".memkit" / "index" / (root / ".memkit/index/CURRENT").read_text().strip()
    store = next((gen / "tantivy").glob("*.store"))
    data = store.read_bytes()
    store.write_bytes(data[: len(data) // 2])
    env = {**env, "MEMKIT_NO_ENGINE": "1"}
    start = time.perf_counter()
    calls = 0
    while time.perf_counter() - start < 60:
        calls += 1
        out = run_hook(
            "user-prompt-submit", {"session_id": f"h{calls}", "prompt": PROMPT}, root, env
        )
        if "BM25 #1" in out:
            return f"{time.perf_counter() - start:.1f} s ({calls} prompts)"
        time.sleep(0.5)
    return f"not within 60 s ({calls} prompts, none answered by BM25)"


def deleted_atoms(root: Path, env: dict[str, str]) -> str:
    env = {**env, "MEMKIT_NO_ENGINE": "1"}
    queries = [PROMPT, "flush the socket before the schema", "retry the webhook before the cron"]
    gone: set[str] = set()
    for n, query in enumerate(queries):
        out = run_hook("user-prompt-submit", {"session_id": f"p{n}", "prompt": query}, root, env)
        if out:
            text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
            gone |= {line.split(" ")[1] for line in text.splitlines() if line.startswith("## ")}
    for atom in gone:
        (root / "shared" / f"{atom}.md").unlink(missing_ok=True)
    served = 0
    for n in range(30):
        query = queries[n % len(queries)]
        out = run_hook("user-prompt-submit", {"session_id": f"q{n}", "prompt": query}, root, env)
        served += any(f"## {atom} " in out for atom in gone)
    return f"{served}/30 prompts injected one of {len(gone)} deleted atoms"


def scenarios(tree: Path | None, atoms: int, only: str = "") -> dict[str, str]:
    with tempfile.TemporaryDirectory(prefix="memkit-fault-bench-") as tmp:
        base = Path(tmp)
        env = environment(tree, base / "home")
        made = make_repo(base, atoms, env)

        def fresh(name: str) -> Path:
            """A copy of the indexed repository of its own, so that nothing one scenario leaves
            (an engine an older hook started while another hung) can answer another's hooks."""
            root = base / name
            shutil.copytree(made, root, symlinks=True)
            return root

        out: dict[str, str] = {}
        for rows in (0, 200_000, 2_000_000):
            root = fresh(f"usage-{rows}")
            out[f"SessionStart, usage log of {rows:,} rows"] = usage_growth(root, env, rows)
        for rows in (0, 2_000_000):
            root = fresh(f"prompts-{rows}")
            key = f"9 prompts, usage log of {rows:,} rows: p50 / max"
            out[key] = usage_prompts(root, env, rows)
        if only == "usage":
            return out
        out["deleted atoms"] = deleted_atoms(fresh("deleted"), env)
        out["truncated .store: answered by BM25 again after"] = heal_time(fresh("heal"), env)
        # Last: an older hook that timed out starts engines of its own, which outlive it.
        out.update(hung_engine(fresh("hung"), env))
        stop_engines(base)
    return out


def stop_engines(base: Path) -> None:
    """Every `memkit serve` a hook started for a repository under `base`."""
    for proc in Path("/proc").iterdir():
        with contextlib.suppress(OSError, ValueError):
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            if b"serve" in argv and any(str(base).encode() in a for a in argv):
                os.kill(int(proc.name), signal.SIGTERM)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--atoms", type=int, default=5_000)
    parser.add_argument("--before", type=Path, help="a folder holding an older memkit package")
    parser.add_argument("--only", choices=("usage",), help="only the usage log's scenarios")
    args = parser.parse_args()
    now = scenarios(None, args.atoms, args.only or "")
    before = scenarios(args.before.resolve(), args.atoms, args.only or "") if args.before else None
    print(f"| fault ({args.atoms:,} atoms) | this memkit |" + (" before |" if before else ""))
    print("|---|---|" + ("---|" if before else ""))
    for key, value in now.items():
        print(f"| {key} | {value} |" + (f" {before[key]} |" if before else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
