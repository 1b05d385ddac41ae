"""The `memkit` command line: one module per verb in `memkit.commands`, one error boundary."""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import pkgutil
import platform
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from memkit import __version__
from memkit.errors import MemkitError

log = logging.getLogger("memkit")


def main_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The whole CLI's parser; with `verb`, only that command's (when it is one), so that a
    command imports what it needs and not what every other command does (~70 ms)."""
    import memkit.commands  # noqa: PLC0415

    parser = argparse.ArgumentParser(
        prog="memkit",
        description="Shared, reviewed, searchable memory for AI coding agents, kept in git.",
    )
    parser.add_argument("--version", action="version", version=f"memkit {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what memkit does")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    # Each verb is a module exposing add_parser(); a new verb is a new file, nothing else.
    names = sorted(
        info.name
        for info in pkgutil.iter_modules(memkit.commands.__path__)
        if not info.name.startswith("_")
    )
    if verb in names:
        names = [verb]
    for name in names:
        importlib.import_module(f"memkit.commands.{name}").add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["hook"]:
        # Claude Code runs this on every prompt: skip the parser of every other command.
        from memkit.claude.main import main as hook_main  # noqa: PLC0415

        return hook_main(argv[1:])
    parser = main_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="memkit: %(message)s",
        stream=sys.stderr,
    )
    try:
        code: int = args.func(args)
    except MemkitError as exc:
        print(f"memkit: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("memkit: interrupted", file=sys.stderr)
        return 130
    except Exception:  # the boundary: anything else is a bug, reported with a log
        path = _write_crash_log(argv)
        print(f"memkit: internal error; details in {path}", file=sys.stderr)
        return 3
    return code


def _write_crash_log(argv: Sequence[str]) -> Path:
    folder = Path(os.environ.get("MEMKIT_LOG_DIR", Path(tempfile.gettempdir()) / "memkit-logs"))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"crash-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
    path.write_text(
        "### memkit crash\n\n"
        f"- memkit {__version__}, Python {platform.python_version()}, {platform.platform()}\n"
        f"- argv: {list(argv)!r}\n- cwd: {Path.cwd()}\n\n```\n{traceback.format_exc()}```\n",
        encoding="utf-8",
    )
    return path


def entrypoint() -> NoReturn:
    # One BLAS thread: a CLI process encodes a handful of texts, and OpenBLAS starting a pool
    # costs ~18 ms on a busy 2-core machine. Set here, not in the library, so that programs
    # importing memkit keep their own BLAS settings.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    raise SystemExit(main())
