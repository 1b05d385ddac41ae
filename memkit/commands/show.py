"""memkit show ID: print one atom."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

from memkit.atom import id_from_path
from memkit.atom.read import read_atom
from memkit.checks.validate import admitted_text
from memkit.errors import MemkitError
from memkit.lifecycle.evidence import note_read
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
    paths = list_atom_files(root)
    for relpath in paths:
        if id_from_path(relpath) == args.id:
            # What validation refuses (a secret, a <private> block, a link to /etc/passwd, a
            # FIFO) is named with its findings, never printed: Claude reads this output.
            text = admitted_text(root, relpath)
            print(f"# {relpath}")
            for line in _replaced_by(root, relpath, paths):
                print(line)
            print(text, end="")
            _note_read(root, args.id)
            return 0
    raise MemkitError(f"no atom with id `{args.id}`; try `memkit search`")


def _replaced_by(root: Path, relpath: str, paths: list[str]) -> list[str]:
    """`# superseded by X (path)` for each atom this one names in `superseded_by`, first:
    whoever reads a retired atom learns what holds now, and where."""
    atom = read_atom(root, relpath, fast=True).atom
    if atom is None or (atom.status != "superseded" and not atom.superseded_by):
        return []
    where = {id_from_path(p): p for p in paths}
    if not atom.superseded_by:
        return [
            "# superseded (no atom named in `superseded_by`): `memkit search` for what holds now"
        ]
    return [
        f"# superseded by {new} ({where[new]}): `memkit show {new}`"
        if new in where
        else f"# superseded by {new} (no such atom here)"
        for new in atom.superseded_by
    ]


def _note_read(root: Path, atom_id: str) -> None:
    """Read by the agent (a Claude Code session runs this): evidence for the lifecycle. It
    only counts usage, so it never fails the command."""
    try:
        note_read(root, atom_id)
    except Exception:
        logging.getLogger(__name__).info("usage not noted", exc_info=True)
