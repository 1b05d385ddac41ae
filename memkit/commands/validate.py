"""memkit validate [FILES]: check atoms' format and references."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memkit.checks.validate import report, resolve_targets, validate
from memkit.repo import find_root


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="check atoms' format and references",
        description="Check atoms (all of them, or the FILES given) and print each problem as "
        "`path:line:col: CODE message`. Exit 0 when clean (warnings allowed), 1 on errors.",
    )
    parser.add_argument("files", nargs="*", help="atom files (default: the whole repository)")
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    root = find_root(args.repo)
    files = resolve_targets(root, args.files) if args.files else None
    return report(validate(root, files))
