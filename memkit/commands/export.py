"""memkit export claude-rules|cursor-rules --project DIR: team memory for agents without hooks."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memkit.errors import UsageError
from memkit.exporters import export_rules, unexport
from memkit.exporters.render import DEFAULT_BUDGET
from memkit.where import memory_root

TARGETS = {
    "claude-rules": "Claude Code: .claude/rules/memkit-*.md and a marked block in CLAUDE.md",
    "cursor-rules": "Cursor: .cursor/rules/memkit-*.mdc",
}


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "export",
        help="write team memory as rules files an agent loads without memkit's hooks",
        description="Write the team's reviewed, valid, live atoms into a code project as "
        "rules files: atoms with `paths` as path-scoped rules, the rest grouped by type within "
        "a size budget. Regenerated idempotently; only memkit-* files carrying memkit's marker "
        "(and CLAUDE.md's marked block) are ever written or removed.",
    )
    targets = parser.add_subparsers(dest="target", metavar="TARGET", required=True)
    for name, help_text in TARGETS.items():
        sub = targets.add_parser(name, help=help_text, description=help_text)
        sub.add_argument(
            "--project", type=Path, required=True, metavar="DIR", help="the code project"
        )
        sub.add_argument(
            "--scope",
            action="append",
            default=[],
            metavar="SCOPE",
            help="also export role:<name> atoms, or `personal` (your own); repeatable. "
            "Shared atoms are always exported",
        )
        sub.add_argument(
            "--budget",
            type=int,
            default=None,
            metavar="CHARS",
            help="characters of memory that load with every session (default 16000)",
        )
        sub.add_argument("--dry-run", action="store_true", help="show what would change")
        sub.add_argument(
            "--remove",
            action="store_true",
            help="take the export back out of the project: memkit's generated files and its "
            "CLAUDE.md block (nothing a person wrote)",
        )
        sub.add_argument(
            "--check", action="store_true", help="exit 1 if the export is not up to date"
        )
        sub.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
        sub.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not args.project.is_dir():
        raise UsageError(f"--project {args.project}: no such folder")
    budget = DEFAULT_BUDGET if args.budget is None else args.budget
    if budget < 0:
        raise UsageError("--budget must be 0 or more characters")
    for scope in args.scope:
        if scope != "personal" and not scope.startswith("role:"):
            raise UsageError(f"--scope {scope}: use role:<name> or personal")
    would = "would " if args.dry_run or args.check else ""
    if args.remove:
        taken = unexport(args.project, args.target, dry_run=bool(would))
        for sync in taken:
            for rel in sync.written:
                print(f"{would}write {rel} (memkit's block taken out)")
            for rel in sync.removed:
                print(f"{would}remove {rel}")
        changed = any(sync.changed for sync in taken)
        print(f"{args.target}: " + ("export taken back" if changed else "nothing of memkit's"))
        return 1 if args.check and changed else 0
    root = memory_root(args.repo)
    report = export_rules(
        root,
        args.project,
        args.target,
        scopes=args.scope,
        budget=budget,
        dry_run=args.dry_run or args.check,
    )
    changes = [report.files] + ([report.block] if report.block else [])
    for sync in changes:
        for rel in sync.written:
            print(f"{would}write {rel}")
        for rel in sync.removed:
            print(f"{would}remove {rel}")
    left = ", ".join(f"{r} {n}" for r, n in sorted(report.selection.left_out.items()))
    print(
        f"{args.target}: {report.plan.grouped} atom(s) in always-loaded files, "
        f"{report.plan.scoped} as path rules, {len(report.plan.over_budget)} over the budget"
        + (f"; not exported: {left}" if left else "")
        + ("" if any(s.changed for s in changes) else "; everything up to date")
    )
    return 1 if args.check and any(s.changed for s in changes) else 0
