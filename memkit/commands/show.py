"""memkit show ID: print one atom."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memkit.errors import MemkitError


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "show", help="print an atom by id", description="Print the atom with this id, whole."
    )
    parser.add_argument("id")
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from memkit.atom import id_from_path  # noqa: PLC0415
    from memkit.repo import find_root, list_atom_files  # noqa: PLC0415

    root = find_root(args.repo)
    for relpath in list_atom_files(root):
        if id_from_path(relpath) == args.id:
            path = root / relpath
            # A link in the repository to /etc/passwd or ~/.ssh/id_rsa is not an atom.
            if not path.resolve().is_relative_to(root.resolve()):
                raise MemkitError(
                    f"{relpath} is a symlink to outside the repository; not shown "
                    "(`memkit validate` reports it as MK019)"
                )
            print(f"# {relpath}")
            print(path.read_text(encoding="utf-8", errors="replace"), end="")
            _note_read(root, args.id)
            return 0
    raise MemkitError(f"no atom with id `{args.id}`; try `memkit search`")


def _note_read(root: Path, atom_id: str) -> None:
    """Read by the agent (a Claude Code session runs this): evidence for the lifecycle. It
    only counts usage, so it never fails the command."""
    import logging  # noqa: PLC0415

    from memkit.lifecycle.evidence import note_read  # noqa: PLC0415

    try:
        note_read(root, atom_id)
    except Exception:
        logging.getLogger(__name__).info("usage not noted", exc_info=True)
