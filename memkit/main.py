"""The `memkit` command line: one module per verb in `memkit.commands`, one error boundary."""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import pkgutil
import platform
import signal
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from memkit import __version__
from memkit.errors import MemkitError

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"hashlib", "memkit.claude.main", "memkit.commands", "memkit.logs"}

VERSION = f"memkit {__version__}"  # `memkit --version`
log = logging.getLogger("memkit")


def main_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The whole CLI's parser; with `verb`, only that command's (when it is one), so that a
    command imports what it needs and not what every other command does (~70 ms)."""
    import memkit.commands

    parser = argparse.ArgumentParser(
        prog="memkit",
        description="Shared, reviewed, searchable memory for AI coding agents, kept in git.",
    )
    parser.add_argument("--version", action="version", version=VERSION)
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
    elif f"{verb}_" in names:  # a verb that is a Python keyword (`import`) lives in `import_`
        names = [f"{verb}_"]
    for name in names:
        importlib.import_module(f"memkit.commands.{name}").add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["hook"]:
        # Claude Code runs this on every prompt: skip the parser of every other command.
        from memkit.claude.main import main as hook_main

        return hook_main(argv[1:])
    if argv == ["--version"]:  # every command's parser would be imported to print one line
        print(VERSION)
        return 0
    parser = main_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="memkit: %(message)s",
        stream=sys.stderr,
    )
    try:
        code: int = args.func(args)
        sys.stdout.flush()  # here, not at exit: a closed pipe is handled below, not by Python
    except BrokenPipeError:
        return _closed_pipe()
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


def _closed_pipe() -> int:
    """The reader went away (`memkit search … | head`): stop quietly, as a tool killed by
    SIGPIPE would (exit 141), and point stdout at /dev/null so the interpreter's final flush
    does not raise again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 128 + signal.SIGPIPE


def _write_crash_log(argv: Sequence[str]) -> Path | str:
    """The crash, for a bug report: in this user's own log folder (0700, the file 0600; see
    `memkit.logs`), with `<private>` text cut and secrets redacted from argv and traceback."""
    from memkit.logs import mask, user_log_dir

    text = mask(
        "### memkit crash\n\n"
        f"- memkit {__version__}, Python {platform.python_version()}, {platform.platform()}\n"
        f"- argv: {list(argv)!r}\n- cwd: {Path.cwd()}\n\n```\n{traceback.format_exc()}```\n"
    )
    folder = user_log_dir()
    if folder is None:
        return "nowhere: no private log folder could be made ($MEMKIT_LOG_DIR)"
    cause = _cause()
    again = _recent_log(folder, cause)
    if again is not None:
        return again
    path = folder / f"crash-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{cause}.log"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        return f"nowhere: {path} cannot be written ({exc.strerror or exc})"
    return path


CRASH_LOG_EVERY = 3600.0  # seconds: one log per cause; the same crash again only adds a line


def _cause() -> str:
    """What makes two crashes the same one: the exception's type (and errno) and where it
    was raised, not its message (which names paths, ids, times)."""
    import hashlib

    kind, exc, tb = sys.exc_info()
    frames = [(Path(f.filename).name, f.name, f.lineno) for f in traceback.extract_tb(tb)[-4:]]
    what = f"{kind.__name__ if kind else ''}:{getattr(exc, 'errno', '')}:{frames}"
    return hashlib.sha1(what.encode()).hexdigest()[:12]  # noqa: S324  (a name, not a secret)


def _recent_log(folder: Path, cause: str) -> Path | None:
    """The crash log this cause was written to within the last hour, a line added to it; a
    hook that fails the same way on every prompt (a full or read-only disk) leaves one."""
    now = time.time()
    for path in sorted(folder.glob(f"crash-*-{cause}.log"), reverse=True):
        try:
            # When it was first written, from its name (appending moves its times on).
            made = time.mktime(time.strptime(path.name[6:21], "%Y%m%d-%H%M%S"))
            if now - made > CRASH_LOG_EVERY:
                continue
            if path.stat().st_size < 64_000:
                fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW)
                with os.fdopen(fd, "a", encoding="utf-8") as fh:
                    fh.write(f"- again at {time.strftime('%Y-%m-%dT%H:%M:%S')}\n")
        except (OSError, ValueError):
            continue
        return path
    return None


def entrypoint() -> NoReturn:
    # One BLAS thread: a CLI process encodes a handful of texts, and OpenBLAS starting a pool
    # costs ~18 ms on a busy 2-core machine. Set here, not in the library, so that programs
    # importing memkit keep their own BLAS settings.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    raise SystemExit(main())
