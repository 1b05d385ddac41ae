"""What each of memkit's entry points imports before it does anything: fresh processes.

    python benchmarks/startup_bench.py --before DIR [--runs 21]

DIR holds another memkit package (e.g. `git archive COMMIT memkit | tar -x -C DIR`); each
entry point is imported once by this checkout's package and once by DIR's, alternating, in
fresh processes (byte-compiled first, as `pip install` leaves them), beside `python -c pass`.
The rows are the imports only: what an entry point pays before its own work, which is what
moving an import from a function to the top of its module can change. Run from any folder:
each process gets its package through PYTHONPATH and runs in a temporary folder, so the
current folder's `memkit` is never the one imported.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import ROOT, commit_all, side_by_side

# (row, the statement a fresh process runs)
ENTRY_POINTS = (
    ("memkit-hook, the engine answers (fast path)", "import memkit.claude.main"),
    (
        "memkit-hook without an engine, UserPromptSubmit",
        "import memkit.claude.main, memkit.claude.protocol, memkit.recall.readers,"
        " memkit.claude.prompt",
    ),
    (
        "memkit-hook without an engine, SessionEnd",
        "import memkit.claude.main, memkit.claude.protocol, memkit.recall.readers,"
        " memkit.claude.session",
    ),
    ("memkit mcp (before `initialize`)", "import memkit.main, memkit.commands.mcp"),
    ("memkit serve (the engine)", "import memkit.main, memkit.commands.serve"),
    ("memkit validate (pre-commit)", "import memkit.main, memkit.commands.validate"),
    ("memkit gate (pre-commit)", "import memkit.main, memkit.commands.gate"),
    ("memkit search", "import memkit.main, memkit.commands.search"),
    ("memkit add", "import memkit.main, memkit.commands.add"),
    ("memkit --help (every command's parser)", "import memkit.main; memkit.main.main_parser()"),
)
# (row, argv after `python -m memkit`): whole commands on a small memory, as a commit's hooks and
# a user run them; the imports a function used to make are paid here either way.
COMMANDS = (
    ("memkit --version", ["--version"]),
    ("memkit validate of one atom (a commit's hook)", ["validate", "shared/atom-3.md"]),
    ("memkit gate of one atom (a commit's hook)", ["gate", "shared/atom-3.md"]),
    ("memkit roles check (a commit's hook)", ["roles", "check"]),
    ("memkit index --quiet, nothing changed (a commit's hook)", ["index", "--quiet"]),
    ("memkit search", ["search", "websocket ping"]),
    ("memkit show", ["show", "atom-3"]),
    ("memkit audit --hook (after a pull)", ["audit", "--hook"]),
    ("memkit review list", ["review", "list"]),
)
HEAVY = ("git", "ruamel", "mistune", "frontmatter", "numpy", "tantivy", "model2vec", "tokenizers")


def _argv(package: Path, *args: str) -> list[str]:
    """A fresh Python of this venv with `package` first on its path and no engine to ask."""
    return ["env", f"PYTHONPATH={package}", "MEMKIT_NO_ENGINE=1", sys.executable, *args]


def _p50s(runs: int, this: list[str], before: list[str], cwd: Path) -> tuple[float, float]:
    """Both commands, alternating (the same moment for both): their p50s in ms."""
    times = side_by_side(runs, {"this": this, "before": before}, cwd)
    return statistics.median(times["this"]), statistics.median(times["before"])


def _small_memory(folder: Path) -> Path:
    """`memkit init` and 30 committed atoms, indexed: what a commit's hooks see."""
    repo = folder / "memory"
    subprocess.run(_argv(ROOT, "-m", "memkit", "init", str(repo)), check=True, capture_output=True)
    for n in range(30):
        (repo / "shared" / f"atom-{n}.md").write_text(
            f"---\nid: atom-{n}\ntype: fact\nconfidence: observed\ncreated: 2026-01-01\n"
            f"triggers: [topic{n}]\n---\n# Topic {n}\n\n- The websocket ping of service {n}"
            f" is {n + 10} s.\n",
            encoding="utf-8",
        )
    commit_all(repo)
    subprocess.run(_argv(ROOT, "-m", "memkit", "index"), cwd=repo, check=True, capture_output=True)
    return repo


def _loaded(package: Path, statement: str, folder: Path) -> tuple[int, str]:
    """How many modules of memkit the statement imports, and which heavy ones."""
    probe = (
        f"{statement}\nimport sys\n"
        "print(sum(1 for m in sys.modules if m.startswith('memkit')),"
        f" ','.join(m for m in {HEAVY!r} if m in sys.modules) or '-')"
    )
    out = subprocess.run(
        _argv(package, "-c", probe), cwd=folder, check=True, capture_output=True, text=True
    ).stdout.split()
    return int(out[0]), out[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", type=Path, required=True, help="a folder holding memkit/")
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    this, before = ROOT, args.before.resolve()
    for package in (this, before):
        compileall.compile_dir(package / "memkit", quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        base = side_by_side(args.runs, {"pass": _argv(this, "-c", "pass")}, folder)["pass"]
        load = os.getloadavg()[0]
        print(f"python -c pass: {statistics.median(base):.1f} ms p50, load {load:.1f}")
        print("| entry point | this: ms p50 | before: ms p50 | ratio | memkit modules | heavy |")
        print("|---|---|---|---|---|---|")
        for row, statement in ENTRY_POINTS:
            now, then = _p50s(
                args.runs, _argv(this, "-c", statement), _argv(before, "-c", statement), folder
            )
            (n_now, heavy_now), (n_then, heavy_then) = (
                _loaded(this, statement, folder),
                _loaded(before, statement, folder),
            )
            print(
                f"| {row} | {now:.1f} | {then:.1f} | {now / then:.2f} | {n_now} / {n_then}"
                f" | {heavy_now} / {heavy_then} |"
            )
        repo = _small_memory(folder)
        print()
        print("| whole command, 30 atoms | this: ms p50 | before: ms p50 | ratio |")
        print("|---|---|---|---|")
        for row, argv in COMMANDS:
            now, then = _p50s(
                args.runs,
                _argv(this, "-m", "memkit", *argv),
                _argv(before, "-m", "memkit", *argv),
                repo,
            )
            print(f"| {row} | {now:.1f} | {then:.1f} | {now / then:.2f} |")
        print(f"load at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
