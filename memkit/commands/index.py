"""memkit index: build or refresh the local search index."""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path
from typing import Any

from memkit import cloneguard
from memkit.budget import OutOfTime, budget, git_hook_seconds
from memkit.errors import MemkitError
from memkit.index import refresh
from memkit.index.manifest import start_git
from memkit.index.store import Busy, current_generation
from memkit.repo import list_atom_files
from memkit.where import memory_root

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.findings", "memkit.recall.readers"}


log = logging.getLogger(__name__)


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "index",
        help="build or refresh the local search index",
        description="Bring <repo>/.memkit/index/ up to date: only atoms whose content changed "
        "are re-indexed, and the new index is published atomically. Deleting .memkit/ loses "
        "nothing: this command rebuilds it.",
    )
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    parser.add_argument("--full", action="store_true", help="rebuild from scratch")
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print nothing and never fail the git command (git hooks): a first build of "
        f"{BACKGROUND_FROM:,}+ atoms goes to the background, a build already running is "
        "left to finish",
    )
    parser.add_argument(
        "--foreground", action="store_true", help="with --quiet: build here, however large"
    )
    # The background build of a first index is the one build that must happen: it waits for
    # the lock where a hook would leave a running build alone.
    parser.add_argument("--wait", action="store_true", help=argparse.SUPPRESS)
    parser.set_defaults(func=run)


# A first build this large (a fresh clone: ~0.5 s a thousand atoms) leaves the git command
# that triggered it (checkout, merge) to return at once. MEMKIT_INDEX_BACKGROUND sets it.
BACKGROUND_FROM = 2000


def _background_from() -> int:
    try:
        return int(os.environ.get("MEMKIT_INDEX_BACKGROUND", BACKGROUND_FROM))
    except ValueError:
        return BACKGROUND_FROM


def _first_build_is_large(root: Path) -> bool:
    return current_generation(root) is None and len(list_atom_files(root)) >= _background_from()


def run(args: argparse.Namespace) -> int:
    root = memory_root(args.repo)
    if args.quiet:  # a git hook: a clone joined before the guard existed gets it now
        try:
            cloneguard.ensure(root)
        except (MemkitError, OSError) as exc:
            log.warning("memkit index: the clone's guard is not installed: %s", exc)
    running = start_git(root)  # git lists the atoms while the rest is imported

    if args.quiet and not args.foreground and _first_build_is_large(root):
        from memkit.recall.readers import start_index

        if start_index(root, detached=True, foreground=True, wait=True) is not None:
            log.info("memkit index: the first build of %s runs in the background", root)
            return 0
    # A git hook's refresh holds the pull or checkout that ran it: past its budget (an atom
    # whose checks are slow) the build goes on in the background instead (issue 40).
    seconds = git_hook_seconds() if args.quiet and not args.foreground else 0.0
    try:
        with budget(seconds):
            stats = refresh(
                root,
                full=args.full,
                quiet=args.quiet,
                wait=args.wait or not args.quiet,
                running=running,
            )
    except OutOfTime:
        from memkit.recall.readers import start_index

        start_index(root, detached=True, foreground=True)
        log.warning(
            "memkit index: stopped after %g s; the index is built in the background (hooks "
            "answer from the previous one meanwhile)",
            seconds,
        )
        return 0
    except Busy:  # a hook while a (background) build runs: it will be current soon enough
        log.info("memkit index: a build is already running for %s", root)
        return 0
    except OSError as exc:
        if args.quiet:
            log.warning("memkit index: %s", exc.strerror or exc)
            return 0
        # A full disk or a read-only checkout is not a crash: the previous index stays in use.
        raise MemkitError(
            f"cannot write the index under {root / '.memkit'}: {exc.strerror or exc}; "
            "the previous index (if any) is kept and still answers"
        ) from exc
    except Exception:
        if not args.quiet:
            raise
        # In a post-checkout/merge hook a failed refresh must not look like a failed git
        # command; readers rebuild a stale index lazily.
        log.warning("memkit index failed; the next search rebuilds it", exc_info=True)
        return 0
    if not args.quiet:
        what = (
            f"{stats.indexed} indexed, {stats.removed} removed" if stats.changed else "up to date"
        )
        print(f"memkit index: {stats.atoms} atom(s), {what} ({stats.seconds:.2f} s)")
        if stats.skipped:
            from memkit.findings import describe_refused

            refused = {p: stats.refused.get(p, ()) for p in stats.skipped}
            print(
                f"memkit index: left out {len(stats.skipped)} invalid atom(s) "
                f"({describe_refused(refused, 5)}); `memkit validate` says what to fix"
            )
    return 0
