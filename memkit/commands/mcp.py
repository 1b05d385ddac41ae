"""memkit mcp: the MCP server Claude Code starts, so the agent can search, read and save memory."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from memkit.errors import UsageError


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
        help="a memory repository (repeatable; a relative path is taken from the project, "
        "$CLAUDE_PROJECT_DIR; default: the one the project is or lies in)",
    )
    parser.set_defaults(func=run)


def roots_of(repos: list[Path]) -> list[Path]:
    from memkit.repo import nearest_repo, trusted_root  # noqa: PLC0415

    project = Path(os.environ.get("CLAUDE_PROJECT_DIR") or Path.cwd())
    if not repos:
        found = nearest_repo(project.resolve())
        if found is None:
            raise UsageError(f"no memory repository in or above {project}: pass --repo PATH")
        return [trusted_root(found)]
    roots = []
    for repo in repos:
        root = (project / repo.expanduser()).resolve()
        if not (root / "memkit.yaml").is_file():
            raise UsageError(f"{root} is not a memory repository (no memkit.yaml)")
        roots.append(trusted_root(root))
    return list(dict.fromkeys(roots))


def run(args: argparse.Namespace) -> int:
    # One BLAS thread, as the engine: a query is one small matrix-vector product.
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    roots = roots_of(args.repo)
    from memkit.mcp.server import serve  # noqa: PLC0415  (the SDK, only for this command)

    return serve(roots)
