"""memkit serve: the warm engine that answers Claude Code hooks for one memory repository."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from memkit.claude.engine import CHECK_SECONDS


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
    parser.add_argument(
        "--check-every",
        type=float,
        default=CHECK_SECONDS,
        metavar="SECONDS",
        help="between requests, refresh the index this often if atoms changed (0: never)",
    )
    parser.add_argument(
        "--stop", action="store_true", help="stop the engine of this repository, if one runs"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # One BLAS thread: a query is one small matrix-vector product, and on a busy machine a
    # second BLAS thread waiting for a core costs a scheduler tick (~8 ms) per query. Set
    # before numpy is first imported, which happens only when the engine loads the index.
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    from memkit.claude.engine import serve, stop  # noqa: PLC0415
    from memkit.repo import find_root  # noqa: PLC0415

    root = find_root(args.repo)
    if args.stop:
        print("memkit: engine stopped" if stop(root) else "memkit: no engine was running")
        return 0
    return serve(root, idle=args.idle, check_every=args.check_every)
