"""memkit serve: the warm engine that answers Claude Code hooks for one memory repository."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the warm engine for Claude Code hooks (started on demand by the hooks)",
        description="Keep the index and the model loaded and answer hooks over the Unix socket "
        ".memkit/engine.sock (0600). One engine per repository; exits after --idle seconds "
        "without a request. The hooks start it themselves; run it by hand only to debug.",
    )
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    parser.add_argument(
        "--idle",
        type=float,
        default=float(os.environ.get("MEMKIT_ENGINE_IDLE", "600")),
        help="seconds without a request before exiting (default 600)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from memkit.claude.engine import serve  # noqa: PLC0415
    from memkit.repo import find_root  # noqa: PLC0415

    return serve(find_root(args.repo), idle=args.idle)
