"""memkit validate [FILES]: check atoms' format and references."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memkit.checks.validate import report, resolve_targets, validate
from memkit.config import load_config
from memkit.roles import identify, sensitive_kinds
from memkit.safety.secrets import redact_secrets
from memkit.where import memory_root

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.lifecycle.catalog", "memkit.lifecycle.supersede"}


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="check atoms' format and references",
        description="Check atoms (all of them, or the FILES given) and print each problem as "
        "`path:line:col: CODE message`. Exit 0 when clean (warnings allowed), 1 on errors.",
    )
    parser.add_argument("files", nargs="*", help="atom files (default: the whole repository)")
    parser.add_argument(
        "--fix",
        action="store_true",
        help="first mark atoms that a live atom supersedes: status: superseded, superseded_by",
    )
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    root = memory_root(args.repo)
    files = resolve_targets(root, args.files) if args.files else None
    if args.fix:
        _fix(root, files)
    return report(validate(root, files))


def _fix(root: Path, files: list[str] | None) -> None:
    from memkit.lifecycle.catalog import usable_entries
    from memkit.lifecycle.supersede import mark_superseded, unmarked

    pairs = unmarked(usable_entries(root), set(files) if files is not None else None)
    kinds = sensitive_kinds(load_config(root))
    guarded = [
        p
        for p in pairs
        if p.older.type in kinds and p.older.scope == "shared" and not p.older.pending
    ]
    if guarded and not identify(root).is_management:
        # Retiring an approved decision is management's (MK204): review's approval does it.
        for pair in guarded:
            print(
                redact_secrets(
                    f"{pair.older.path}: left as it is: only management retires an approved "
                    f"`{pair.older.type}` atom; approving `{pair.newer.id}` in review does"
                )
            )
        pairs = [p for p in pairs if p not in guarded]
    for path, newer in mark_superseded(root, pairs):
        by = ", ".join(newer)
        print(redact_secrets(f"{path}: fixed: status: superseded (superseded by {by})"))
