"""Claude Code hook latency: `memkit-hook user-prompt-submit` end to end, fresh process.

    python benchmarks/hook_bench.py [--atoms 10000] [--runs 30] [--before DIR]

Side by side with `python -c pass` in the same run: with the warm engine (`memkit serve`,
which has the index and the model loaded), and without it (BM25 and triggers, in-process).
memkit is byte-compiled first, as `pip install` does: an editable checkout run with
PYTHONDONTWRITEBYTECODE=1 would otherwise compile the hook's modules on every call (~4 ms).
--before DIR runs every hook a second time, interleaved, with the memkit package found in DIR
(e.g. `git archive` of an older commit), against its own copy of the repository and engine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

from _common import PYTHON, p50_p95, write_repo
from index_bench import synthetic


def _runs(root: Path, i: int, tag: str) -> list[tuple[str, list[str], str]]:
    hook = str(Path(PYTHON).parent / "memkit-hook")
    prompt = {"cwd": str(root), "prompt": f"how often should we rotate the cache {i}?"}
    start = {"cwd": str(root), "source": "startup"}
    read = {
        "cwd": str(root),
        "tool_name": "Read",
        "tool_input": {"file_path": str(root / "src/net/conn.py")},
    }
    stop = {"cwd": str(root), "last_assistant_message": "We rotate the cache every 10 min now."}
    return [
        (
            "prompt",
            [hook, "user-prompt-submit"],
            json.dumps({**prompt, "session_id": f"c{tag}{i}"}),
        ),
        ("start", [hook, "session-start"], json.dumps({**start, "session_id": f"c{tag}{i}"})),
        ("warm", [hook, "user-prompt-submit"], json.dumps({**prompt, "session_id": f"w{tag}{i}"})),
        ("wstart", [hook, "session-start"], json.dumps({**start, "session_id": f"w{tag}{i}"})),
        ("wtool", [hook, "pre-tool-use"], json.dumps({**read, "session_id": f"w{tag}{i}"})),
        ("wstop", [hook, "stop"], json.dumps({**stop, "session_id": f"w{tag}{i}"})),
        ("stop", [hook, "stop"], json.dumps({**stop, "session_id": f"c{tag}{i}"})),
    ]


ROWS = (
    ("warm", "`memkit-hook user-prompt-submit`, warm engine"),
    ("wstart", "`memkit-hook session-start`, warm engine"),
    ("wtool", "`memkit-hook pre-tool-use` (Read), warm engine"),
    ("wstop", "`memkit-hook stop` (after a prompt's atoms), warm engine"),
    ("prompt", "`memkit-hook user-prompt-submit`, no engine"),
    ("start", "`memkit-hook session-start`, no engine"),
    ("stop", "`memkit-hook stop` (after a prompt's atoms), no engine"),
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--atoms", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument(
        "--before", type=Path, help="a folder holding an older memkit package, run interleaved"
    )
    args = parser.parse_args()
    import memkit

    trees: dict[str, Path | None] = {"this": None}
    if args.before:
        trees["before"] = args.before.resolve()
    for tree in trees.values():
        package = str(tree / "memkit") if tree else str(Path(memkit.__file__).parent)
        subprocess.run([PYTHON, "-m", "compileall", "-q", package], check=True, capture_output=True)
    with tempfile.TemporaryDirectory(prefix="memkit-hook-bench-") as tmp:
        roots: dict[str, Path] = {}
        envs: dict[str, dict[str, str]] = {}
        engines = []
        for tag, tree in trees.items():
            root = roots[tag] = Path(tmp) / tag / "repo"
            write_repo(root, synthetic(args.atoms))
            env = envs[tag] = dict(os.environ)
            if tree is not None:
                env["PYTHONPATH"] = str(tree)
            subprocess.run(
                [PYTHON, "-m", "memkit", "index", "--quiet"], cwd=root, check=True, env=env
            )
            engines.append(
                subprocess.Popen(
                    [PYTHON, "-m", "memkit", "serve", "--idle", "120"], cwd=root, env=env
                )
            )
        for root in roots.values():
            while not (root / ".memkit" / "engine.sock").exists():
                time.sleep(0.05)
        times: dict[str, list[float]] = {"pass": []}
        for i in range(args.runs):
            start = time.perf_counter()
            subprocess.run([PYTHON, "-c", "pass"], check=True)
            times["pass"].append((time.perf_counter() - start) * 1000)
            for tag, root in roots.items():
                sock = root / ".memkit" / "engine.sock"
                for name, argv, payload in _runs(root, i, tag):
                    hidden = name in ("prompt", "start", "stop")
                    # The path without an engine: its socket hidden, and none started.
                    env = {**envs[tag], "MEMKIT_NO_ENGINE": "1" if hidden else "0"}
                    if hidden:
                        sock.rename(sock.with_suffix(".off"))
                    start = time.perf_counter()
                    out = subprocess.run(
                        argv,
                        input=payload,
                        capture_output=True,
                        text=True,
                        check=True,
                        cwd=root,
                        env=env,
                    )
                    times.setdefault(f"{tag}:{name}", []).append(
                        (time.perf_counter() - start) * 1000
                    )
                    if hidden:
                        sock.with_suffix(".off").rename(sock)
                    if name in ("prompt", "warm"):
                        assert "memkit-memory" in out.stdout, out.stdout[:200]
        for engine in engines:
            engine.terminate()
            engine.wait()
    base = p50_p95(times["pass"])
    tags = list(trees)
    head = " | ".join(f"{t}: p50 / p95 (ratio)" for t in tags)
    print(f"| {args.atoms:,}-atom repo, fresh process | {head} |")
    print("|---|" + "---|" * len(tags))
    print(
        "| `python -c pass` | "
        + " | ".join(f"{base[0]:.0f} / {base[1]:.0f} ms" for _ in tags)
        + " |"
    )
    for name, label in ROWS:
        cells = []
        for tag in tags:
            p50, p95 = p50_p95(times[f"{tag}:{name}"])
            cells.append(f"{p50:.0f} / {p95:.0f} ms ({p50 / base[0]:.1f}× / {p95 / base[1]:.1f}×)")
        print(f"| {label} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
