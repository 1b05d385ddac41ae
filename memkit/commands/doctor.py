"""memkit doctor: is this clone set up to work, and if not, what fixes it."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memkit.agents.checks import agent_checks
from memkit.agents.wired import named
from memkit.checkup import FAIL, WARN, Check
from memkit.doctor import check_claude, diagnose
from memkit.errors import MemkitError
from memkit.repo import find_root, nearest_repo
from memkit.where import find_memory
from memkit.wiring_checks import claude_checks, named_repos


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "doctor",
        help="check this clone's setup and local state: hooks, PATH, index, usage log, model, "
        "identity, engine, Claude Code and its MCP server",
        description="Check what memory depends on in this clone: the git hooks, `memkit` on the "
        "PATH they run with, .memkit/ (yours alone? read-only? a full disk?), the index (sound? "
        "current? invalid atoms left out?), the usage log, the embedding model, who you are to "
        "memkit, the warm engine (stopped? answering?), memkit's hooks in a project's "
        "Claude Code settings, the memory repositories they and .mcp.json name (there? named "
        "by a path of this machine?), and whether the MCP server answers in time. Each "
        "problem comes with the command that fixes it. Exit 1 when something fails, 0 when "
        "only warnings remain.",
    )
    parser.add_argument(
        "--repo",
        type=Path,
        help="memory repository (default: from cwd, else the first the project's files name)",
    )
    parser.add_argument(
        "--project", type=Path, help="project whose .claude/settings.json to check (default: cwd)"
    )
    parser.set_defaults(func=run)


def memory_root(repo: Path | None, project: Path) -> Path | None:
    """The repository to check: the one named, the one here, else the first one the
    project's agent files name that exists (a teammate runs doctor in the project);
    None when there is none."""
    if repo is not None or nearest_repo(Path.cwd().resolve()) is not None:
        return find_root(repo)
    try:
        return find_memory(None, project)  # the one any agent's files name
    except MemkitError:
        return None  # named, but not here: the wiring checks say which


def run(args: argparse.Namespace) -> int:
    project = (args.project or Path.cwd()).resolve()
    here = Path.cwd().resolve()
    root = memory_root(args.repo, project)
    if root is not None:
        checks = diagnose(root, project)
    else:
        # A code project, not a memory repository: say so, check what belongs to a project
        # (its Claude Code settings), and leave nothing behind (no .memkit/ made here).
        none = (
            "none of the memory repositories this project's Claude Code files name exists here"
            if named_repos(project)[0] or named(project)
            else f"none here: {here} (and no folder above it) has no memkit.yaml"
        )
        hint = (
            "memkit doctor --repo PATH (your clone of the memory repository), or "
            "`memkit init --join` inside that clone"
        )
        checks = [
            Check(FAIL, "memory repository", none, hint),
            check_claude(project),
            *claude_checks(None, project),
            *agent_checks(project),
        ]
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
