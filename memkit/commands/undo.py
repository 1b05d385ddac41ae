"""memkit undo ID: take back an atom that a capture candidate wrote, with the reason."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memkit.capture.accept import undo
from memkit.where import memory_root


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "undo",
        help="take back an atom written from a capture candidate",
        description="Remove the atom that `memkit candidates accept` (or capture's "
        "write_personal router) wrote, exactly that file, and keep the reason with the "
        "candidate, which is not offered again. A file edited since is kept unless --force. "
        "An atom already committed is removed from the working tree: commit its removal.",
    )
    parser.add_argument("id", help="the atom's id or the candidate's")
    parser.add_argument("--reason", default="", help="why it is taken back (kept locally)")
    parser.add_argument("--force", action="store_true", help="remove it even if edited since")
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    root = memory_root(args.repo)
    cand, done = undo(root, args.id, args.reason.strip() or "no reason given", force=args.force)
    print(f"undone: {done} (candidate {cand.id}, reason: {cand.reason})")
    return 0
