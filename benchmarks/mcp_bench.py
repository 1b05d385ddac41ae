"""Latency of the MCP server's `search` tool, warm, through stdio with the SDK's own client.

    python benchmarks/mcp_bench.py [--atoms 10000] [--runs 200]

Two `memkit mcp` servers run at once on one synthetic repository (every atom committed, as a
team's memory is), each behind its own SDK client, and their calls are interleaved so that
machine noise hits them alike: one asks the warm engine (`memkit serve`, running), the other
answers in-process (the engine's socket is hidden for its calls). Beside them, the protocol's
own floor: a `ping` round trip on the same connection. Warm: the first calls of each server
(index opened, model loaded) are run before timing. Each search is a different query.

Then the start of a server: Claude Code (`claude -p`, 2.1.197) sends its first request ~2 s
after starting its MCP servers, with the tools of those that have answered. A fresh `memkit
mcp` until it has answered `initialize`, then `tools/list`, beside `python -c pass`, a bare
import of the SDK's server and the server of another git ref (`--baseline`, default main: its
package is taken with `git archive` and put first on PYTHONPATH), interleaved.

    python benchmarks/mcp_bench.py --starts-only --starts 30
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import TextIO

import anyio
from _common import PYTHON, p50_p95, write_repo
from index_bench import synthetic
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPDeprecationWarning

from memkit.mcp.rpc import initialize_request

WARMUP = 5
# `ping` is gone from the 2026 protocol; the handshake-era one Claude Code speaks still has it.
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)


def server(root: Path, errlog: TextIO) -> Client:
    params = StdioServerParameters(
        command=PYTHON,
        args=["-m", "memkit", "mcp", "--repo", str(root)],
        env={**os.environ, "MEMKIT_NO_ENGINE": "1"},
        cwd=str(root),
    )
    # The initialize handshake, as Claude Code 2.1.197 speaks it (and `ping` exists there).
    return Client(stdio_client(params, errlog=errlog), mode="legacy")


async def measure(root: Path, runs: int) -> dict[str, list[float]]:
    sock = root / ".memkit" / "engine.sock"
    hidden = sock.with_suffix(".off")
    times: dict[str, list[float]] = {"ping": [], "engine": [], "alone": []}
    with open(os.devnull, "w") as devnull:  # noqa: PTH123
        async with server(root, devnull) as via_engine, server(root, devnull) as alone:

            async def search(client: Client, query: str) -> float:
                start = time.perf_counter()
                result = await client.call_tool("search", {"query": query})
                took = (time.perf_counter() - start) * 1000
                assert not result.is_error, result.content
                return took

            for i in range(WARMUP + runs):
                query = f"how often should we rotate the cache {i}?"
                start = time.perf_counter()
                await via_engine.send_ping()
                ping = (time.perf_counter() - start) * 1000
                engine = await search(via_engine, query)
                sock.rename(hidden)  # this server finds no engine: it answers itself
                try:
                    own = await search(alone, query)
                finally:
                    hidden.rename(sock)
                if i >= WARMUP:
                    times["ping"].append(ping)
                    times["engine"].append(engine)
                    times["alone"].append(own)
    return times


def search_times(root: Path, runs: int) -> dict[str, list[float]]:
    engine = subprocess.Popen([PYTHON, "-m", "memkit", "serve", "--idle", "120"], cwd=root)
    try:
        while not (root / ".memkit" / "engine.sock").exists():
            time.sleep(0.05)
        return anyio.run(measure, root, runs)
    finally:
        engine.terminate()
        engine.wait()


INITIALIZE = initialize_request("bench")
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def start_ms(root: Path, pythonpath: str | None = None) -> tuple[float, float]:
    """A fresh `memkit mcp` (`pythonpath`: another memkit's code) until its answers to
    `initialize` and then `tools/list` arrive, as Claude Code asks them: ms since the start."""
    env = {**os.environ, "MEMKIT_NO_ENGINE": "1"}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    start = time.perf_counter()
    proc = subprocess.Popen(
        [PYTHON, "-m", "memkit", "mcp", "--repo", str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=root,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    took = []
    for message in (INITIALIZE, LIST):
        proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()
        answer = proc.stdout.readline()
        took.append((time.perf_counter() - start) * 1000)
        assert b'"result"' in answer, answer
    proc.stdin.close()
    proc.kill()
    proc.wait()
    proc.stdout.close()
    return took[0], took[1]


def baseline_code(ref: str, into: Path) -> Path:
    """memkit's package as it is at git `ref` (e.g. main), to run side by side."""
    repo = Path(__file__).resolve().parents[1]
    archive = subprocess.run(
        ["git", "archive", ref, "memkit"], cwd=repo, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(into)], check=True, capture_output=True)
    return into


def starts(root: Path, runs: int, baseline: Path | None) -> dict[str, list[float]]:
    from _common import fresh_process_ms

    out: dict[str, list[float]] = {
        "pass": [],
        "sdk": [],
        "init": [],
        "list": [],
        "base_init": [],
        "base_list": [],
    }
    for _ in range(runs):
        out["pass"] += fresh_process_ms([PYTHON, "-c", "pass"], 1)
        out["sdk"] += fresh_process_ms([PYTHON, "-c", "import mcp.server.mcpserver"], 1)
        init, listed = start_ms(root)
        out["init"].append(init)
        out["list"].append(listed)
        if baseline is not None:
            init, listed = start_ms(root, str(baseline))
            out["base_init"].append(init)
            out["base_list"].append(listed)
    return out


def table(
    times: dict[str, list[float]],
    title: str,
    floor: str,
    rows: list[tuple[str, str]],
    *,
    digits: int,
) -> None:
    """A Markdown table; the first row is the floor the others are divided by."""
    base = p50_p95(times[rows[0][0]])
    print(f"| {title} | p50 | p95 | ratio to {floor} p50 / p95 |")
    print("|---|---|---|---|")
    for name, label in rows:
        p50, p95 = p50_p95(times[name])
        print(
            f"| {label} | {p50:.{digits}f} ms | {p95:.{digits}f} ms | "
            f"{p50 / base[0]:.1f}× / {p95 / base[1]:.1f}× |"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--atoms", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--starts", type=int, default=15, help="fresh server starts timed")
    parser.add_argument(
        "--starts-only", action="store_true", help="only the starts (on a 100-atom repository)"
    )
    parser.add_argument(
        "--baseline", default="main", help="git ref whose server starts beside this one ('': none)"
    )
    args = parser.parse_args()
    import memkit

    package = str(Path(memkit.__file__).parent)
    subprocess.run([PYTHON, "-m", "compileall", "-q", package], check=True, capture_output=True)
    atoms = 100 if args.starts_only else args.atoms
    with tempfile.TemporaryDirectory(prefix="memkit-mcp-bench-") as tmp:
        root = Path(tmp) / "repo"
        write_repo(root, synthetic(atoms))
        from _common import commit_all

        commit_all(root)
        subprocess.run([PYTHON, "-m", "memkit", "index", "--quiet"], cwd=root, check=True)
        baseline = None
        if args.baseline:
            (Path(tmp) / "baseline").mkdir()
            baseline = baseline_code(args.baseline, Path(tmp) / "baseline")
        if not args.starts_only:
            times = search_times(root, args.runs)
        started = starts(root, args.starts, baseline)
    if not args.starts_only:
        table(
            times,
            f"{args.atoms:,}-atom repo, one warm server",
            "ping",
            [
                ("ping", "MCP `ping` round trip (the protocol's floor)"),
                ("engine", "`search` tool call, answered by the warm engine"),
                ("alone", "`search` tool call, answered in-process (no engine)"),
            ],
            digits=1,
        )
        print(
            f"\n{args.runs} calls each, interleaved; {WARMUP} warm-up calls per server not timed.\n"
        )
    rows = [
        ("pass", "`python -c pass`"),
        ("sdk", "`python -c 'import mcp.server.mcpserver'` (the SDK alone)"),
        ("init", "`memkit mcp` until `initialize` is answered"),
        ("list", "`memkit mcp` until `tools/list` is answered"),
    ]
    if baseline is not None:
        rows += [
            ("base_init", f"{args.baseline}'s `memkit mcp` until `initialize` is answered"),
            ("base_list", f"{args.baseline}'s `memkit mcp` until `tools/list` is answered"),
        ]
    table(started, "fresh process", "`python -c pass`", rows, digits=0)
    print(f"\n{args.starts} starts each, interleaved.")
    print(f"Python {sys.version.split()[0]}, load average {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
