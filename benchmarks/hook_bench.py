"""Claude Code hook latency: `memkit-hook user-prompt-submit` end to end, fresh process.

    python benchmarks/hook_bench.py [--atoms 10000] [--runs 30]

Side by side with `python -c pass` in the same run. The hook answers from BM25 and triggers
(no model load), as it does in Claude Code.
"""

from __future__ import annotations

import argparse
import json
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
    with tempfile.TemporaryDirectory(prefix="memkit-hook-bench-") as tmp:
        root = Path(tmp) / "repo"
        write_repo(root, synthetic(args.atoms))
        subprocess.run([PYTHON, "-m", "memkit", "index", "--quiet"], cwd=root, check=True)
        hook = str(Path(PYTHON).parent / "memkit-hook")
        times: dict[str, list[float]] = {"pass": [], "prompt": [], "start": []}
        for i in range(args.runs):
            for name, argv, payload in (
                ("pass", [PYTHON, "-c", "pass"], ""),
                (
                    "prompt",
                    [hook, "user-prompt-submit"],
                    json.dumps(
                        {
                            "session_id": f"s{i}",
                            "cwd": str(root),
                            "prompt": f"how often should we rotate the cache {i}?",
                        }
                    ),
                ),
                (
                    "start",
                    [hook, "session-start"],
                    json.dumps({"session_id": f"s{i}", "cwd": str(root), "source": "startup"}),
                ),
            ):
                start = time.perf_counter()
                out = subprocess.run(
                    argv, input=payload, capture_output=True, text=True, check=True, cwd=root
                )
                times[name].append((time.perf_counter() - start) * 1000)
                if name == "prompt":
                    assert "memkit-memory" in out.stdout, out.stdout[:200]
    base = p50_p95(times["pass"])
    print(
        f"| {args.atoms:,}-atom repo, fresh process | p50 | p95 | ratio to `python -c pass` "
        "p50 / p95 |"
    )
    print("|---|---|---|---|")
    print(f"| `python -c pass` | {base[0]:.0f} ms | {base[1]:.0f} ms | 1× |")
    for name, label in (
        ("prompt", "`memkit-hook user-prompt-submit`"),
        ("start", "`memkit-hook session-start`"),
    ):
        p50, p95 = p50_p95(times[name])
        print(
            f"| {label} | {p50:.0f} ms | {p95:.0f} ms | {p50 / base[0]:.1f}× / "
            f"{p95 / base[1]:.1f}× |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
