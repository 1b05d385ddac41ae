"""memkit doctor: is this clone set up to work, and if not, what fixes it."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "doctor",
        help="check this clone's setup and local state: hooks, PATH, index, usage log, model, "
        "identity, engine, Claude Code",
        description="Check what memory depends on in this clone: the git hooks, `memkit` on the "
        "PATH they run with, .memkit/ (yours alone? read-only? a full disk?), the index (sound? "
        "current? invalid atoms left out?), the usage log, the embedding model, who you are to "
        "memkit, the warm engine (stopped? yours?), and memkit's hooks in a project's "
        "Claude Code settings. Each problem comes with the command that fixes it. Exit 1 when "
        "something fails, 0 when only warnings remain.",
    )
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    parser.add_argument(
        "--project", type=Path, help="project whose .claude/settings.json to check (default: cwd)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from memkit.doctor import FAIL, WARN, Check, check_claude, diagnose  # noqa: PLC0415
    from memkit.repo import find_root, nearest_repo  # noqa: PLC0415

    project = (args.project or Path.cwd()).resolve()
    here = Path.cwd().resolve()
    if args.repo is None and nearest_repo(here) is None:
        # A code project, not a memory repository: say so, check what belongs to a project
        # (its Claude Code settings), and leave nothing behind (no .memkit/ made here).
        checks = [
            Check(
                FAIL,
                "memory repository",
                f"none here: {here} (and no folder above it) has no memkit.yaml",
                "memkit doctor --repo PATH (your clone of the memory repository), or "
                "`memkit init --join` inside that clone",
            ),
            check_claude(project),
        ]
    else:
        checks = diagnose(find_root(args.repo), project)
    for check in checks:
        print(check.format())
    failed = sum(c.status == FAIL for c in checks)
    warned = sum(c.status == WARN for c in checks)
    if failed:
        print(f"memkit doctor: {failed} problem(s), {warned} warning(s)")
    else:
        print(
            f"memkit doctor: no problems, {warned} warning(s)"
            if warned
            else "memkit doctor: all set"
        )
    return 1 if failed else 0
