"""memkit mcp: the MCP server Claude Code starts, so the agent can search, read and save memory."""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path
from typing import Any

from memkit.errors import UsageError
from memkit.mcp.server import serve

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.agents.dialects", "memkit.claude.wiring", "memkit.repo"}


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "mcp",
        help="the MCP server (stdio) that lets the agent search, read and save memory",
        description="Serve the tools search, get, timeline and save over stdin/stdout (the "
        "Model Context Protocol); Claude Code starts it from .mcp.json, which `memkit install "
        "claude` writes. Saves go to the first repository named. No network port is opened. "
        "See docs/mcp.md.",
    )
    parser.add_argument(
        "--repo",
        type=Path,
        action="append",
        default=[],
        help="a memory repository (repeatable; a relative path is taken from the folder of "
        "the .mcp.json that names this server, else from here; the paths in $MEMKIT_REPOS "
        "follow; default: the one the project is or lies in)",
    )
    parser.add_argument(
        "--agent",
        help="the agent that starts the server (codex, gemini, cursor, opencode): a relative "
        "--repo is then taken from the folder of that agent's project files",
    )
    parser.set_defaults(func=run, agent=None)


def base_folder(start: Path, agent: str | None = None) -> Path:
    """What a relative --repo is taken from: the folder of the `.mcp.json` that names memkit's
    server (Claude Code finds that file in the folder it starts in or one above, and starts
    the server in the folder it started in), else `start` itself. Another agent's: the
    folder of its project files (`memkit.agents.dialects.project_root`)."""
    if agent:
        from memkit.agents.dialects import project_root

        return Path(project_root(agent, str(start)))
    from memkit.claude.wiring import MCP_CONFIG, mcp_entry, read_json

    for folder in (start, *start.parents):
        try:
            found = mcp_entry(read_json(folder / MCP_CONFIG))
        except (OSError, ValueError):
            continue
        if found is not None:
            return folder
    return start


def roots_of(repos: list[Path], agent: str | None = None) -> list[Path]:
    from memkit.claude.wiring import REPOS_ENV, env_repos
    from memkit.repo import nearest_repo, trusted_root

    project = Path(os.environ.get("CLAUDE_PROJECT_DIR") or Path.cwd()).resolve()
    # Then the repositories of this user's machine, from their .claude/settings.local.json.
    named = [*repos, *(Path(p) for p in env_repos(os.environ.get(REPOS_ENV)))]
    if not named:
        found = nearest_repo(project)
        if found is None:
            raise UsageError(f"no memory repository in or above {project}: pass --repo PATH")
        return [trusted_root(found)]
    base = (
        base_folder(project, agent)
        if any(not r.expanduser().is_absolute() for r in named)
        else project
    )
    roots: list[Path] = []
    missing: list[Path] = []
    for repo in named:
        root = (base / repo.expanduser()).resolve()
        (roots if (root / "memkit.yaml").is_file() else missing).append(root)
    if not roots:
        raise UsageError(f"{missing[0]} is not a memory repository (no memkit.yaml)")
    for root in missing:  # as the hooks do: serve the others (`memkit doctor` names it)
        logging.getLogger("memkit").warning("%s is not a memory repository; left out", root)
    roots = [trusted_root(root) for root in roots]
    return list(dict.fromkeys(roots))


def run(args: argparse.Namespace) -> int:
    # One BLAS thread, as the engine: a query is one small matrix-vector product.
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    roots = roots_of(args.repo, args.agent)

    return serve(roots)
