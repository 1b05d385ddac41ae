"""memkit show ID: print one atom."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

from memkit.atom import id_from_path
from memkit.capture.episodic import by_id, shown
from memkit.checks.validate import admitted_text
from memkit.errors import MemkitError
from memkit.lifecycle.evidence import note_read
from memkit.recall.masking import mask
from memkit.repo import list_atom_files
from memkit.where import memory_root


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "show",
        help="print an atom by id",
        description="Print the atom with this id, whole, when validation admits it; "
        "otherwise name its findings.",
    )
    parser.add_argument("id")
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    root = memory_root(args.repo)
    for relpath in list_atom_files(root):
        if id_from_path(relpath) == args.id:
            # What validation refuses (a secret, a <private> block, a link to /etc/passwd, a
            # FIFO) is named with its findings, never printed: Claude reads this output.
            text = admitted_text(root, relpath)
            print(f"# {relpath}")
            print(text, end="")
            _note_read(root, args.id)
            return 0
    summary = by_id(root, args.id)
    if summary is not None:  # your own session summary, as `memkit search --episodes` lists it
        print(f"# .memkit/episodic/{summary.path.name}")
        print(mask(shown(summary)), end="")
        return 0
    raise MemkitError(f"no atom with id `{args.id}`; try `memkit search`")


def _note_read(root: Path, atom_id: str) -> None:
    """Read by the agent (a Claude Code session runs this): evidence for the lifecycle. It
    only counts usage, so it never fails the command."""
    try:
        note_read(root, atom_id)
    except Exception:
        logging.getLogger(__name__).info("usage not noted", exc_info=True)
