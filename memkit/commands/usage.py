"""memkit usage export: this clone's usage, as a small JSON the team can merge."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from memkit.errors import UsageError
from memkit.lifecycle.team import export, write_export
from memkit.where import memory_root


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "usage",
        help="export this clone's usage counts for the team (opt-in)",
        description="Usage stays in this clone (.memkit/usage.db) unless you export it. "
        "`export` prints, per atom, the sessions that confirmed, contradicted, were given, "
        "read or cited it and the first and last day of use (no prompts, no session ids); "
        "--write saves it as usage/<you>.json, your other clones' entries kept, to commit. "
        "`memkit promote`, `memkit archive` and `memkit health` merge every such file.",
    )
    parser.add_argument("action", choices=("export",))
    parser.add_argument("--write", action="store_true", help="write usage/<you>.json")
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.action != "export":
        raise UsageError(f"unknown action {args.action!r}")
    root = memory_root(args.repo)
    rel, doc = export(root)
    if not args.write:
        print(json.dumps(doc, ensure_ascii=False, indent=1))
        return 0
    write_export(root, rel, doc)
    atoms = sum(len(c["atoms"]) for c in doc["clones"].values())
    print(f"wrote {rel} ({atoms} atom entries); commit it to share your usage: git add {rel}")
    return 0
