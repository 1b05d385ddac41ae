"""memkit serve: the warm engine that answers Claude Code hooks for one memory repository."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from memkit.claude.engine import CHECK_SECONDS, KILLED, NOT_RUNNING, STOPPED, serve, stop
from memkit.errors import MemkitError
from memkit.where import memory_root


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
        "--stop",
        action="store_true",
        help="stop the engine of this repository, if one runs (SIGTERM, then SIGKILL)",
    )
    parser.add_argument(
        "--wait",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="with --stop: how long the engine gets to exit before it is killed (default 10)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # One BLAS thread: a query is one small matrix-vector product, and on a busy machine a
    # second BLAS thread waiting for a core costs a scheduler tick (~8 ms) per query. Set
    # before numpy is first imported, which happens only when the engine loads the index.
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")

    root = memory_root(args.repo)
    if args.stop:
        return _stop(root, args.wait)
    try:
        return serve(root, idle=args.idle, check_every=args.check_every)
    except OSError as exc:
        # A read-only or full .memkit/ (no lock file, no socket): not a crash, and hooks
        # answer in-process meanwhile.
        raise MemkitError(
            f"cannot run the engine in {root / '.memkit'}: {exc.strerror or exc}; hooks "
            "answer without it"
        ) from exc


def _stop(root: Path, wait: float) -> int:
    outcome, pid = stop(root, wait=wait)
    if outcome == NOT_RUNNING:
        print("memkit: no engine was running")
    elif outcome == STOPPED:
        print(f"memkit: engine stopped (pid {pid})")
    elif outcome == KILLED:
        print(f"memkit: the engine (pid {pid}) did not exit within {wait:g} s; killed it")
    else:
        raise MemkitError(f"the engine (pid {pid}) is still running, even after SIGKILL")
    return 0
