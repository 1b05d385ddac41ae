"""Hook latency after issue 43 (subagents, summaries checkpointed at Stop and served only where
relevant, paths as a search dimension, Chinese folded to one script, blind spots), side by side
with the code before it, interleaved in one run.

    python benchmarks/sessions_hook_bench.py --before DIR [--atoms 2000] [--runs 30]

DIR holds memkit's package as it was (`git archive main memkit | tar -x -C DIR`), run through
PYTHONPATH. Each version gets its own copy of a synthetic memory (some atoms with `paths:`,
some in Chinese) indexed by that version, its own warm engine, and twenty of the asking
person's session summaries in `.memkit/episodic/` (each prompt weighs them now). Every hook
runs in a fresh process, as Claude Code runs it; each prompt opens a session of its own (the
costliest: the first prompt), and each Stop reads a one-turn transcript (and now writes that
session's summary).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import subprocess
import tempfile
import time
from pathlib import Path

from _common import PYTHON, p50_p95, write_repo
from index_bench import synthetic

COLD = {"MEMKIT_NO_ENGINE": "1"}
WARM = {"MEMKIT_NO_ENGINE": "0"}
WHO = {"GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.com"}
WHO |= {"GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}


def memory(folder: Path, atoms: int) -> None:
    docs = synthetic(atoms)
    docs += [(f"zh-{i}", f"冒煙測試 {i}", f"- 每次部署後先跑冒煙測試 {i}。") for i in range(20)]
    write_repo(folder, docs)
    for i in range(20):  # atoms about files
        path = folder / "shared" / f"d-syn-{i}.md"
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("---\n#", f'paths: ["src/mod{i}/**"]\n---\n#', 1), "utf-8")
    summaries = folder / ".memkit" / "episodic"
    summaries.mkdir(parents=True, mode=0o700)
    today = dt.date.today()
    for i in range(20):
        sid = f"session-{today:%Y%m%d}-old{i:05d}"
        (summaries / f"{sid}.md").write_text(
            f"---\nid: {sid}\ntype: fact\nconfidence: observed\ncreated: {today}\n"
            f"author: bench@example.com\nexpires: {today + dt.timedelta(days=20)}\n"
            f'source: "claude-code session old{i} in {folder.name}"\ntags: [episodic]\n---\n'
            f"# Session of {today} in {folder.name}: the billing export job {i}\n\n"
            f'## Asked\n- "Why does the billing export job {i} run twice?"\n'
            f"\n## Changed\n- Files read: `src/billing/export{i}.py`\n",
            encoding="utf-8",
        )
        (summaries / f"{sid}.md").chmod(0o600)


def _cpu() -> float:
    """Milliseconds of CPU the processes this one has waited for used so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (used.ru_utime + used.ru_stime) * 1000


def transcript(folder: Path, n: int) -> Path:
    path = folder.parent / f"t-{folder.name}-{n}.jsonl"
    lines = [
        {"type": "user", "message": {"role": "user", "content": f"rotate the cache {n}"}},
        {
            "type": "assistant",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
        },
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--atoms", type=int, default=2_000)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    import memkit

    for package in (Path(memkit.__file__).parent, args.before):
        subprocess.run([PYTHON, "-m", "compileall", "-q", str(package)], check=True)
    hook = str(Path(PYTHON).parent / "memkit-hook")
    base = {**os.environ, **WHO}
    base.pop("PYTHONPATH", None)
    versions = {
        "after": base,
        "before": {**base, "PYTHONPATH": str(args.before.resolve().parent)},
    }
    with tempfile.TemporaryDirectory(prefix="memkit-sessions-bench-") as tmp:
        repos = {name: Path(tmp) / f"repo-{name}" for name in versions}
        for name, env in versions.items():
            memory(repos[name], args.atoms)
            index = [PYTHON, "-m", "memkit", "index", "--quiet", "--foreground"]
            subprocess.run(index, cwd=repos[name], env=env, check=True)
        engines = [
            subprocess.Popen(
                [PYTHON, "-m", "memkit", "serve", "--idle", "120"], cwd=repos[name], env=env
            )
            for name, env in versions.items()
        ]
        try:
            for name in versions:
                while not (repos[name] / ".memkit" / "engine.sock").exists():
                    time.sleep(0.05)
            events: dict[str, tuple[str, dict[str, object]]] = {
                "prompt": ("user-prompt-submit", {"prompt": "how often to rotate the cache?"}),
                "prompt about a summary": (
                    "user-prompt-submit",
                    {"prompt": "why does the billing export job 7 run twice?"},
                ),
                "prompt in Chinese": ("user-prompt-submit", {"prompt": "冒烟测试什么时候跑？"}),
                "prompt naming a file": (
                    "user-prompt-submit",
                    {"prompt": "why does src/mod3/conn.py time out?"},
                ),
                "session-start": ("session-start", {"source": "startup"}),
                "pre-tool-use (Read)": (
                    "pre-tool-use",
                    {"tool_name": "Read", "tool_input": {"file_path": "src/mod3/conn.py"}},
                ),
                "stop (one turn)": ("stop", {"last_assistant_message": "Done."}),
                "session-end": ("session-end", {"reason": "other"}),
            }
            times: dict[tuple[str, str, bool], list[float]] = {}
            # CPU time of each hook process and what it waited for (git): what a loaded
            # machine's wall clock hides under other processes' turns.
            cpu: dict[tuple[str, str, bool], list[float]] = {}
            for i in range(args.runs):
                for name in versions:  # the machine's own noise, in the same run
                    start = time.perf_counter()
                    used = _cpu()
                    subprocess.run([PYTHON, "-c", "pass"], check=True)
                    took = (time.perf_counter() - start) * 1000
                    times.setdefault(("python -c pass", name, False), []).append(took)
                    cpu.setdefault(("python -c pass", name, False), []).append(_cpu() - used)
                for label, (event, fields) in events.items():
                    for warm in (False, True):
                        if warm and event not in ("user-prompt-submit", "session-start"):
                            continue
                        for name, env in versions.items():
                            folder = repos[name]
                            session = f"{name}-{label[:6]}-{warm}-{i}"
                            payload: dict[str, object] = {
                                **fields,
                                "cwd": str(folder),
                                "session_id": session,
                            }
                            if event in ("stop", "session-end"):
                                payload["transcript_path"] = str(transcript(folder, i))
                            start = time.perf_counter()
                            used = _cpu()
                            subprocess.run(
                                [hook, event],
                                input=json.dumps(payload),
                                capture_output=True,
                                text=True,
                                check=True,
                                cwd=folder,
                                env={**env, **(WARM if warm else COLD)},
                            )
                            took = (time.perf_counter() - start) * 1000
                            times.setdefault((label, name, warm), []).append(took)
                            cpu.setdefault((label, name, warm), []).append(_cpu() - used)
        finally:
            for engine in engines:
                engine.terminate()
                engine.wait()
    print(
        f"| hook ({args.atoms:,} atoms, fresh process) | wall p50 / p95 before | after "
        "| CPU p50 before | after |"
    )
    print("|---|---|---|---|---|")
    for label in ("python -c pass", *events):
        for warm in (False, True):
            if (label, "after", warm) not in times:
                continue
            b = p50_p95(times[(label, "before", warm)])
            a = p50_p95(times[(label, "after", warm)])
            cb = p50_p95(cpu.get((label, "before", warm), [0.0]))[0]
            ca = p50_p95(cpu.get((label, "after", warm), [0.0]))[0]
            where = "warm engine" if warm else "no engine"
            print(
                f"| {label}, {where} | {b[0]:.0f} / {b[1]:.0f} ms | {a[0]:.0f} / {a[1]:.0f} ms "
                f"| {cb:.0f} ms | {ca:.0f} ms |"
            )
    print(f"\nload average: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
