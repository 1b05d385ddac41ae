"""memkit summary: regenerate MEMORY.md, the short overview of the repository (the
memkit-summary hook runs `memkit summary --stage` in every commit, so it never goes stale)."""

from __future__ import annotations

import argparse
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memkit import git
from memkit.config import load_config
from memkit.errors import MemkitError
from memkit.files import write_atomic
from memkit.index import open_index, refresh
from memkit.index.store import current_generation
from memkit.repo import list_atom_files
from memkit.summary import render_summary
from memkit.where import memory_root

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.admission.decide", "memkit.index.prepare"}


MEMORY_MD = "MEMORY.md"


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "summary",
        help="regenerate MEMORY.md, the short overview (scopes, counts, top triggers)",
        description="Write MEMORY.md from the index: how many active atoms each shared and "
        "role scope holds, by type, and the most common triggers, within limits.memory_md_lines "
        "(default 30). Personal and episodic atoms stay out of it. The memkit-summary hook "
        "keeps it current in every commit (`--stage`); --check tells CI whether it is current.",
    )
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if MEMORY.md is out of date"
    )
    mode.add_argument(
        "--stage",
        action="store_true",
        help="write it and stage it (the memkit-summary pre-commit hook: the commit takes it)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    root = memory_root(args.repo)
    if args.stage and _partial_commit():
        return 0  # the next whole commit takes MEMORY.md along
    config = load_config(root)
    text = render_summary(_rows(root, config), config.memory_md_lines)
    path = root / MEMORY_MD
    try:
        current: str | None = path.read_text(encoding="utf-8")
    except OSError:
        current = None
    if current == text:
        if not args.stage:
            print(f"memkit summary: {MEMORY_MD} is up to date")
        return 0
    if args.check:
        print(f"memkit summary: {MEMORY_MD} is out of date; run `memkit summary` and commit it")
        return 1
    write_atomic(path, text)
    if args.stage:
        # Staged by the hook itself: pre-commit sees no unstaged change (nothing "modified by
        # this hook"), and the commit being made takes the current overview with it.

        git.run(root, "add", "--", MEMORY_MD)
    print(f"memkit summary: wrote {MEMORY_MD} ({len(text.splitlines())} lines)")
    return 0


def _partial_commit() -> bool:
    """`git commit -- PATHS` (or `-o`): git commits a temporary index of those paths only, and
    the hooks see it as GIT_INDEX_FILE (`.git/next-index-*.lock`). MEMORY.md staged there would
    stay behind in the person's own index, and written but not staged it would fail the hook:
    such a commit leaves MEMORY.md alone."""
    return Path(os.environ.get("GIT_INDEX_FILE", "")).name.startswith("next-index")


def _rows(root: Path, config: Any) -> list[Mapping[str, Any]]:
    """What the overview counts, per atom. From the index when this clone has one (an
    incremental refresh is nearly free); else, or when it cannot be refreshed (a read-only
    or full disk), from the files' frontmatter: a commit hook must not be the one that pays
    for a first build, which a checkout sends to the background."""
    if current_generation(root) is not None:
        try:
            refresh(root, quiet=True)
            return list(open_index(root).atoms)
        except (OSError, MemkitError) as exc:
            logging.getLogger("memkit").info("summary from the files: %s", exc)
    from memkit.admission.decide import read_admitted
    from memkit.index.prepare import entry

    rows: list[Mapping[str, Any]] = []
    for relpath in list_atom_files(root):
        parsed, refused = read_admitted(root, relpath, config, fast=True)  # as the index does
        if parsed.atom is not None and not refused:
            rows.append(entry(parsed.atom, blob=""))  # the index's own row, without its blob
    return rows
