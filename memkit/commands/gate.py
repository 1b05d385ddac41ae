"""memkit gate [FILES]: quality score and duplicates of atoms."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memkit.checks.gate import run_gate
from memkit.checks.validate import resolve_targets
from memkit.where import memory_root


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "gate",
        help="score atoms' quality and find duplicates",
        description="Score each atom (all, or the FILES given) with the write-gate rules and "
        "compare it with the other active atoms. Prints the score and the rules that fired; "
        "exit 1 when an atom fails (MK101) or duplicates another (MK103).",
    )
    parser.add_argument("files", nargs="*", help="atom files (default: every atom)")
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    root = memory_root(args.repo)
    files = resolve_targets(root, args.files) if args.files else None
    return run_gate(root, files)
