"""Claude Code hook latency: `memkit-hook EVENT` end to end, fresh process.

    python benchmarks/hook_bench.py [--atoms 10000] [--runs 30] [--before DIR]

Side by side with `python -c pass` in the same run: with the warm engine (`memkit serve`,
which has the index and the model loaded), and without it (BM25 and triggers, in-process).
memkit is byte-compiled first, as `pip install` does: an editable checkout run with
PYTHONDONTWRITEBYTECODE=1 would otherwise compile the hook's modules on every call (~4 ms).

--before DIR measures the memkit package found in DIR too (e.g. `git archive <older commit>
memkit | tar -x -C DIR`), interleaved with this one, each on its own copy of the repository
with its own engine: both then run as `python -m memkit.claude.main EVENT`.
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

ROWS = (
    ("warm", "`memkit-hook user-prompt-submit`, warm engine"),
    ("wstart", "`memkit-hook session-start`, warm engine"),
    ("wtool", "`memkit-hook pre-tool-use` (Read), warm engine"),
    ("prompt", "`memkit-hook user-prompt-submit`, no engine"),
    ("start", "`memkit-hook session-start`, no engine"),
)


class Version:
    """One memkit (this one, or the package in `tree`) with its repository and engine."""

    def __init__(
        self, label: str, tree: Path | None, root: Path, atoms: int, *, side_by_side: bool
    ) -> None:
        self.label, self.root = label, root
        self.env = {**os.environ}
        if tree is not None:
            self.env["PYTHONPATH"] = str(tree)
        # Side by side, both start the same way (a console script, `memkit-hook`, always runs
        # this memkit).
        self.hook = (
            [PYTHON, "-m", "memkit.claude.main"]
            if side_by_side
            else [str(Path(PYTHON).parent / "memkit-hook")]
        )
        package = str(tree / "memkit") if tree else str(Path(__import__("memkit").__file__).parent)
        subprocess.run([PYTHON, "-m", "compileall", "-q", package], check=True, capture_output=True)
        write_repo(root, synthetic(atoms))
        self.memkit("index", "--quiet")
        self.engine = subprocess.Popen(
            [PYTHON, "-m", "memkit", "serve", "--idle", "120"], cwd=root, env=self.env
        )
        self.sock = root / ".memkit" / "engine.sock"
        while not self.sock.exists():
            time.sleep(0.05)
        # The engine's first answer loads the index and the model: not timed, waited for.
        payload = {"session_id": "warmup", "cwd": str(root), "prompt": "rotate the cache"}
        self.run("user-prompt-submit", payload, warm=True, wait=120)
        (root / ".memkit" / "engine.hung").unlink(missing_ok=True)
        self.times: dict[str, list[float]] = {name: [] for name, _ in ROWS}

    def memkit(self, *args: str) -> None:
        subprocess.run([PYTHON, "-m", "memkit", *args], cwd=self.root, env=self.env, check=True)

    def run(
        self, event: str, payload: dict[str, object], *, warm: bool, wait: float = 60
    ) -> tuple[float, str]:
        env = {**self.env, "MEMKIT_NO_ENGINE": "0" if warm else "1"}
        if wait > 60:
            env["MEMKIT_HOOK_DEADLINE"] = str(wait)
        if not warm:  # hide the engine's socket: the path without an engine
            self.sock.rename(self.sock.with_suffix(".off"))
        try:
            start = time.perf_counter()
            out = subprocess.run(
                [*self.hook, event],
                input=json.dumps(payload),
                capture_output=True,
                text=True,
                check=True,
                cwd=self.root,
                env=env,
                timeout=wait,
            )
            return (time.perf_counter() - start) * 1000, out.stdout
        finally:
            if not warm:
                self.sock.with_suffix(".off").rename(self.sock)

    def round(self, i: int) -> None:
        root = str(self.root)
        prompt = {"cwd": root, "prompt": f"how often should we rotate the cache {i}?"}
        start = {"cwd": root, "source": "startup"}
        tool = {
            "cwd": root,
            "tool_name": "Read",
            "tool_input": {"file_path": str(self.root / "src/net/conn.py")},
        }
        for name, event, payload, warm in (
            ("prompt", "user-prompt-submit", {**prompt, "session_id": f"c{i}"}, False),
            ("start", "session-start", {**start, "session_id": f"c{i}"}, False),
            ("warm", "user-prompt-submit", {**prompt, "session_id": f"w{i}"}, True),
            ("wstart", "session-start", {**start, "session_id": f"w{i}"}, True),
            ("wtool", "pre-tool-use", {**tool, "session_id": f"w{i}"}, True),
        ):
            ms, out = self.run(event, payload, warm=warm)
            self.times[name].append(ms)
            if name in ("prompt", "warm"):
                assert "memkit-memory" in out, out[:200]

    def close(self) -> None:
        self.engine.terminate()
        self.engine.wait()
        # A warm row the engine did not answer in time is noted there: none may be.
        log = self.root / ".memkit" / "logs" / "hooks.log"
        noted = log.read_text(encoding="utf-8") if log.exists() else ""
        assert "in-process" not in noted, noted[-2000:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--atoms", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--before", type=Path, help="a folder holding an older memkit package")
    args = parser.parse_args()
    passes: list[float] = []
    with tempfile.TemporaryDirectory(prefix="memkit-hook-bench-") as tmp:
        both = args.before is not None
        versions = [Version("this memkit", None, Path(tmp) / "repo", args.atoms, side_by_side=both)]
        if args.before:
            before = args.before.resolve()
            versions.append(
                Version("before", before, Path(tmp) / "before", args.atoms, side_by_side=True)
            )
        try:
            for i in range(args.runs):
                start = time.perf_counter()
                subprocess.run([PYTHON, "-c", "pass"], check=True)
                passes.append((time.perf_counter() - start) * 1000)
                for version in versions:
                    version.round(i)
        finally:
            for version in versions:
                version.close()
    base = p50_p95(passes)
    print(
        f"| {args.atoms:,}-atom repo, fresh process | p50 | p95 | ratio to `python -c pass` "
        "p50 / p95 |"
    )
    print("|---|---|---|---|")
    print(f"| `python -c pass` | {base[0]:.0f} ms | {base[1]:.0f} ms | 1× |")
    for name, label in ROWS:
        for version in versions:
            p50, p95 = p50_p95(version.times[name])
            tag = f" ({version.label})" if len(versions) > 1 else ""
            print(
                f"| {label}{tag} | {p50:.0f} ms | {p95:.0f} ms | {p50 / base[0]:.1f}× / "
                f"{p95 / base[1]:.1f}× |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
