"""memkit index: build or refresh the local search index."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

from memkit.errors import MemkitError
from memkit.repo import find_root

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
        "--quiet", action="store_true", help="print nothing (git hooks); never fail the git command"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from memkit.index import refresh  # noqa: PLC0415

    root = find_root(args.repo)
    try:
        stats = refresh(root, full=args.full, quiet=args.quiet)
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
            from memkit.findings import describe_refused  # noqa: PLC0415

            refused = {p: stats.refused.get(p, ()) for p in stats.skipped}
            print(
                f"memkit index: left out {len(stats.skipped)} invalid atom(s) "
                f"({describe_refused(refused, 5)}); `memkit validate` says what to fix"
            )
    return 0
