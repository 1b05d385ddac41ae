"""Claude Code hook latency: `memkit-hook user-prompt-submit` end to end, fresh process.

    python benchmarks/hook_bench.py [--atoms 10000] [--runs 30]

Side by side with `python -c pass` in the same run: with the warm engine (`memkit serve`,
which has the index and the model loaded), and without it (BM25 and triggers, in-process).
memkit is byte-compiled first, as `pip install` does: an editable checkout run with
PYTHONDONTWRITEBYTECODE=1 would otherwise compile the hook's modules on every call (~4 ms).
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--atoms", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    import memkit

    package = str(Path(memkit.__file__).parent)
    subprocess.run([PYTHON, "-m", "compileall", "-q", package], check=True, capture_output=True)
    with tempfile.TemporaryDirectory(prefix="memkit-hook-bench-") as tmp:
        root = Path(tmp) / "repo"
        write_repo(root, synthetic(args.atoms))
        subprocess.run([PYTHON, "-m", "memkit", "index", "--quiet"], cwd=root, check=True)
        hook = str(Path(PYTHON).parent / "memkit-hook")
        cold_env = {**os.environ, "MEMKIT_NO_ENGINE": "1"}
        names = ("pass", "prompt", "start", "warm", "wstart", "wtool")
        times: dict[str, list[float]] = {k: [] for k in names}
        engine = subprocess.Popen([PYTHON, "-m", "memkit", "serve", "--idle", "60"], cwd=root)
        sock = root / ".memkit" / "engine.sock"
        while not sock.exists():
            time.sleep(0.05)
        for i in range(args.runs):
            prompt = {"cwd": str(root), "prompt": f"how often should we rotate the cache {i}?"}
            runs = (
                ("pass", [PYTHON, "-c", "pass"], ""),
                (
                    "prompt",
                    [hook, "user-prompt-submit"],
                    json.dumps({**prompt, "session_id": f"c{i}"}),
                ),
                (
                    "start",
                    [hook, "session-start"],
                    json.dumps({"session_id": f"c{i}", "cwd": str(root), "source": "startup"}),
                ),
                (
                    "warm",
                    [hook, "user-prompt-submit"],
                    json.dumps({**prompt, "session_id": f"w{i}"}),
                ),
                (
                    "wstart",
                    [hook, "session-start"],
                    json.dumps({"session_id": f"w{i}", "cwd": str(root), "source": "startup"}),
                ),
                (
                    "wtool",
                    [hook, "pre-tool-use"],
                    json.dumps(
                        {
                            "session_id": f"w{i}",
                            "cwd": str(root),
                            "tool_name": "Read",
                            "tool_input": {"file_path": str(root / "src/net/conn.py")},
                        }
                    ),
                ),
            )
            for name, argv, payload in runs:
                hidden = name in ("prompt", "start")
                if hidden:  # hide the engine's socket: the path without an engine
                    sock.rename(sock.with_suffix(".off"))
                start = time.perf_counter()
                out = subprocess.run(
                    argv,
                    input=payload,
                    capture_output=True,
                    text=True,
                    check=True,
                    cwd=root,
                    env=cold_env,
                )
                times[name].append((time.perf_counter() - start) * 1000)
                if hidden:
                    sock.with_suffix(".off").rename(sock)
                if name in ("prompt", "warm"):
                    assert "memkit-memory" in out.stdout, out.stdout[:200]
        engine.terminate()
        engine.wait()
    base = p50_p95(times["pass"])
    print(
        f"| {args.atoms:,}-atom repo, fresh process | p50 | p95 | ratio to `python -c pass` "
        "p50 / p95 |"
    )
    print("|---|---|---|---|")
    print(f"| `python -c pass` | {base[0]:.0f} ms | {base[1]:.0f} ms | 1× |")
    for name, label in (
        ("warm", "`memkit-hook user-prompt-submit`, warm engine"),
        ("wstart", "`memkit-hook session-start`, warm engine"),
        ("wtool", "`memkit-hook pre-tool-use` (Read), warm engine"),
        ("prompt", "`memkit-hook user-prompt-submit`, no engine"),
        ("start", "`memkit-hook session-start`, no engine"),
    ):
        p50, p95 = p50_p95(times[name])
        print(
            f"| {label} | {p50:.0f} ms | {p95:.0f} ms | {p50 / base[0]:.1f}× / "
            f"{p95 / base[1]:.1f}× |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
