"""memkit validate [FILES]: check atoms' format and references."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memkit.checks.validate import report, resolve_targets, validate
from memkit.config import load_config
from memkit.files import write_atomic
from memkit.repo import list_atom_files
from memkit.roles import identify, sensitive_kinds
from memkit.safety.invisible import harmless, without_harmless
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
        help="first mark atoms that a live atom supersedes (status: superseded, superseded_by) "
        "and remove invisible characters that hide nothing (MK113)",
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

    entries = usable_entries(root)
    kinds = sensitive_kinds(load_config(root))
    # Changing an approved decision is management's (MK204): review's approval does it.
    approved = (
        {}
        if identify(root).is_management
        else {
            e.path: e.type
            for e in entries
            if e.type in kinds and e.scope == "shared" and not e.pending
        }
    )
    pairs = unmarked(entries, set(files) if files is not None else None)
    for pair in [p for p in pairs if p.older.path in approved]:
        print(
            redact_secrets(
                f"{pair.older.path}: left as it is: only management retires an approved "
                f"`{pair.older.type}` atom; approving `{pair.newer.id}` in review does"
            )
        )
    pairs = [p for p in pairs if p.older.path not in approved]
    for path, newer in mark_superseded(root, pairs):
        by = ", ".join(newer)
        print(redact_secrets(f"{path}: fixed: status: superseded (superseded by {by})"))
    for path in files if files is not None else list_atom_files(root):
        try:
            text = (root / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # validation reports what cannot be read
        found = harmless(text)
        if not found:
            continue
        if path in approved:
            print(
                redact_secrets(
                    f"{path}: left as it is: only management changes an approved "
                    f"`{approved[path]}` atom; its {len(found)} invisible character(s) "
                    "hide nothing (MK113 is a warning)"
                )
            )
            continue
        write_atomic(root / path, without_harmless(text))
        print(redact_secrets(f"{path}: fixed: {len(found)} invisible character(s) removed"))
