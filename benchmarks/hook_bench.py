"""Claude Code hook latency: `memkit-hook user-prompt-submit` end to end, fresh process.

    python benchmarks/hook_bench.py [--atoms 10000] [--runs 30]

Side by side with `python -c pass` in the same run: with the warm engine (`memkit serve`,
which has the index and the model loaded), and without it (BM25 and triggers, in-process).
Capture (issue 15) side by side too: a second copy of the repository whose memkit.yaml turns
capture off, with its own engine; and prompts that state a rule, so that each one writes a new
candidate. Every prompt opens a new session: each is a session's first prompt (the costliest
for capture: its state is created and the author's last summary looked for).
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
        root, off = Path(tmp) / "repo", Path(tmp) / "repo-off"
        for folder in (root, off):
            write_repo(folder, synthetic(args.atoms))
            subprocess.run([PYTHON, "-m", "memkit", "index", "--quiet"], cwd=folder, check=True)
        with (off / "memkit.yaml").open("a", encoding="utf-8") as fh:
            fh.write("capture:\n  enabled: false\n")
        hook = str(Path(PYTHON).parent / "memkit-hook")
        cold_env = {**os.environ, "MEMKIT_NO_ENGINE": "1"}
        names = ("pass", "prompt", "start", "warm", "wstart", "wtool")
        names += ("offprompt", "offwarm", "ruleprompt", "rulewarm")
        times: dict[str, list[float]] = {k: [] for k in names}
        engines = [
            subprocess.Popen([PYTHON, "-m", "memkit", "serve", "--idle", "60"], cwd=folder)
            for folder in (root, off)
        ]
        sock, off_sock = root / ".memkit" / "engine.sock", off / ".memkit" / "engine.sock"
        while not sock.exists() or not off_sock.exists():
            time.sleep(0.05)
        for i in range(args.runs):
            prompt = {"cwd": str(root), "prompt": f"how often should we rotate the cache {i}?"}
            off_prompt = {**prompt, "cwd": str(off)}
            rule = {**prompt, "prompt": f"From now on we rotate the cache every {i} hours."}
            warm_rule = {**prompt, "prompt": f"From now on we rotate the cache every {i} minutes."}
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
                (
                    "offprompt",
                    [hook, "user-prompt-submit"],
                    json.dumps({**off_prompt, "session_id": f"oc{i}"}),
                ),
                (
                    "offwarm",
                    [hook, "user-prompt-submit"],
                    json.dumps({**off_prompt, "session_id": f"ow{i}"}),
                ),
                (
                    "ruleprompt",
                    [hook, "user-prompt-submit"],
                    json.dumps({**rule, "session_id": f"rc{i}"}),
                ),
                (
                    "rulewarm",
                    [hook, "user-prompt-submit"],
                    json.dumps({**warm_rule, "session_id": f"rw{i}"}),
                ),
            )
            for name, argv, payload in runs:
                hidden = name in ("prompt", "start", "offprompt", "ruleprompt")
                folder = off if name.startswith("off") else root
                here = folder / ".memkit" / "engine.sock"
                if hidden:  # hide the engine's socket: the path without an engine
                    here.rename(here.with_suffix(".off"))
                start = time.perf_counter()
                out = subprocess.run(
                    argv,
                    input=payload,
                    capture_output=True,
                    text=True,
                    check=True,
                    cwd=folder,
                    env=cold_env,
                )
                times[name].append((time.perf_counter() - start) * 1000)
                if hidden:
                    here.with_suffix(".off").rename(here)
                if name in ("prompt", "warm", "offprompt", "offwarm"):
                    assert "memkit-memory" in out.stdout, out.stdout[:200]
        for engine in engines:
            engine.terminate()
            engine.wait()
        written = len(list((root / ".memkit" / "capture" / "candidates").glob("*.json")))
        assert written == 2 * args.runs, written  # every rule prompt left a candidate
        assert not (off / ".memkit" / "capture" / "candidates").exists()
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
        ("offwarm", "`user-prompt-submit`, warm engine, capture off"),
        ("warm", "`user-prompt-submit`, warm engine, capture on (as above)"),
        ("rulewarm", "`user-prompt-submit`, warm engine, a prompt stating a rule (new candidate)"),
        ("offprompt", "`user-prompt-submit`, no engine, capture off"),
        ("prompt", "`user-prompt-submit`, no engine, capture on (as above)"),
        ("ruleprompt", "`user-prompt-submit`, no engine, a prompt stating a rule (new candidate)"),
    ):
        p50, p95 = p50_p95(times[name])
        print(
            f"| {label} | {p50:.0f} ms | {p95:.0f} ms | {p50 / base[0]:.1f}× / "
            f"{p95 / base[1]:.1f}× |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
