"""Hook latency of each agent's adapter beside Claude Code's, in one run (issue 42).

    python benchmarks/agent_hook_bench.py [--atoms 10000] [--runs 30]

`memkit-hook EVENT` as Claude Code runs it, and `memkit-hook EVENT --agent NAME` with the JSON
each agent sends (Codex CLI, Gemini CLI, Cursor, Copilot CLI, OpenCode's plugin), timed end to
end in a fresh process, interleaved round by round: without the warm engine (BM25 and
triggers, in-process) and through it. The agents' rows differ from Claude Code's by the
translation of their JSON (`memkit.agents.dialects`, which imports `json`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import PYTHON, p50_p95, write_repo
from hook_bench import COLD, WARM, _warm_up
from index_bench import synthetic

PROMPT = "how often should we rotate the cache?"


def payloads(cwd: str, session: str) -> dict[str, dict[str, tuple[str, dict[str, Any]]]]:
    """agent -> memkit's event -> (the hook's arguments' agent, the JSON it sends)."""
    claude = {"session_id": session, "cwd": cwd}
    cursor = {"conversation_id": session, "generation_id": "g", "workspace_roots": [cwd]}
    copilot = {"timestamp": 1, "cwd": cwd, "sessionId": session}
    return {
        "claude": {
            "user-prompt-submit": ("", {**claude, "prompt": PROMPT}),
            "session-start": ("", {**claude, "source": "startup"}),
        },
        "codex": {
            "user-prompt-submit": ("codex", {**claude, "prompt": PROMPT, "turn_id": "t"}),
            "session-start": ("codex", {**claude, "source": "startup"}),
        },
        "gemini": {
            "user-prompt-submit": ("gemini", {**claude, "prompt": PROMPT}),
            "session-start": ("gemini", {**claude, "source": "startup"}),
        },
        "cursor": {
            "user-prompt-submit": ("cursor", {**cursor, "prompt": PROMPT}),
            "session-start": ("cursor", cursor),
        },
        "copilot": {
            "user-prompt-submit": ("copilot", {**copilot, "prompt": PROMPT}),
            "session-start": ("copilot", {**copilot, "source": "new"}),
        },
        "opencode": {
            "user-prompt-submit": ("opencode", {**claude, "prompt": PROMPT}),
            "session-start": ("opencode", {**claude, "source": "startup"}),
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--atoms", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    import memkit

    subprocess.run(
        [PYTHON, "-m", "compileall", "-q", str(Path(memkit.__file__).parent)],
        check=True,
        capture_output=True,
    )
    hook = str(Path(PYTHON).parent / "memkit-hook")
    with tempfile.TemporaryDirectory(prefix="memkit-agent-bench-") as tmp:
        folder = Path(tmp) / "repo"
        write_repo(folder, synthetic(args.atoms))
        subprocess.run([PYTHON, "-m", "memkit", "index", "--quiet"], cwd=folder, check=True)
        engine = subprocess.Popen([PYTHON, "-m", "memkit", "serve", "--idle", "60"], cwd=folder)
        try:
            while not (folder / ".memkit" / "engine.sock").exists():
                time.sleep(0.05)
            _warm_up(hook, folder, {**os.environ, **WARM})
            times: dict[tuple[str, str, str], list[float]] = {}
            for i in range(args.runs):
                table = payloads(str(folder), f"bench-{i}")
                for agent, events in table.items():
                    for event, (dialect, payload) in events.items():
                        for mode, env in (("no engine", COLD), ("warm engine", WARM)):
                            argv = [hook, event, *(["--agent", dialect] if dialect else [])]
                            start = time.perf_counter()
                            subprocess.run(
                                argv, input=json.dumps(payload), text=True, cwd=folder,
                                env={**os.environ, **env}, capture_output=True, check=True,
                            )  # fmt: skip
                            elapsed = (time.perf_counter() - start) * 1000
                            times.setdefault((agent, event, mode), []).append(elapsed)
        finally:
            engine.terminate()
            engine.wait(timeout=30)
    print(f"{args.atoms} atoms, {args.runs} rounds, interleaved\n")
    print("| agent | event | engine | p50 | p95 | p50 vs Claude Code |")
    print("|---|---|---|---|---|---|")
    for (agent, event, mode), values in times.items():
        p50, p95 = p50_p95(values)
        base, _ = p50_p95(times[("claude", event, mode)])
        print(f"| {agent} | {event} | {mode} | {p50:.0f} ms | {p95:.0f} ms | {p50 / base:.2f}× |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
