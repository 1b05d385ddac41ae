"""memkit import claude-md|cursor-rules|adr PATH…: atoms from what a team already keeps."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memkit.atom import TYPES
from memkit.config import load_config
from memkit.errors import UsageError
from memkit.importers import adr, claude_md, cursor
from memkit.importers.run import run_import
from memkit.where import memory_root

FORMATS = {
    "claude-md": (
        "CLAUDE.md files, .claude/rules/*.md (paths: → paths) and Claude Code auto-memory files",
        "files or folders (a folder is searched for CLAUDE.md and .claude/rules/)",
    ),
    "cursor-rules": (
        ".cursorrules and .cursor/rules/*.mdc (globs: → paths, description → title)",
        "files or folders (a folder is searched for .cursorrules and *.mdc)",
    ),
    "adr": (
        "architecture decision records (Nygard, adr-tools, MADR): one decision atom each",
        "folders of records (or single record files)",
    ),
}


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "import",
        help="turn CLAUDE.md, Cursor rules or ADRs into atoms",
        description="Split what a team already keeps into atoms (one rule or decision each) "
        "and write each through the same checks as `memkit add`: write gate, duplicates, "
        "contradictions, secrets, roles (sensitive types go to shared/_pending/). Every atom "
        "records where it came from (`source: path:line`); importing again writes nothing new.",
    )
    formats = parser.add_subparsers(dest="format", metavar="FORMAT", required=True)
    for name, (help_text, paths_help) in FORMATS.items():
        sub = formats.add_parser(name, help=help_text, description=help_text)
        sub.add_argument("paths", nargs="+", type=Path, metavar="PATH", help=paths_help)
        sub.add_argument(
            "--dry-run", action="store_true", help="show what would be written and refused"
        )
        sub.add_argument(
            "--scope", default="shared", help="shared (default), role:<name>, personal[:<user>]"
        )
        sub.add_argument(
            "--type", choices=TYPES, help="give every atom this type (default: guessed)"
        )
        about = sub.add_mutually_exclusive_group()
        about.add_argument(
            "--project",
            help="the code project the text is about (default: the folder name of each "
            "file's git work tree); exported into that project only",
        )
        about.add_argument(
            "--no-project",
            action="store_true",
            help="the text is team-wide: no `project:` on the atoms",
        )
        sub.add_argument(
            "--encoding", help="read files in this encoding (default: UTF-8, or UTF-16 with a BOM)"
        )
        sub.add_argument("--json", action="store_true", help="print the report as JSON")
        sub.add_argument("-q", "--quiet", action="store_true", help="print the summary only")
        sub.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
        sub.set_defaults(func=run)


def _collector(fmt: str) -> Callable[..., Any]:
    if fmt == "claude-md":
        return claude_md.collect
    if fmt == "cursor-rules":
        return cursor.collect
    return adr.collect


def run(args: argparse.Namespace) -> int:
    missing = [p for p in args.paths if not p.exists()]
    if missing:
        raise UsageError(f"{missing[0]}: no such file or folder")
    if args.scope == "episodic":
        raise UsageError("--scope episodic: imported rules are not session summaries")
    root = memory_root(args.repo)
    config = load_config(root)
    collected = _collector(args.format)(
        args.paths, max_lines=config.atom_lines, encoding=args.encoding, forced_type=args.type
    )
    project = "" if getattr(args, "no_project", False) else getattr(args, "project", None)
    report = run_import(
        root,
        collected,
        args.format,
        scope=args.scope,
        dry_run=args.dry_run,
        config=config,
        project=project,
    )
    if args.json:
        print(json.dumps(report.as_json(), ensure_ascii=False))
        return 0
    if not args.quiet:
        _print_outcomes(report)
    print(summary(report))
    return 0


def _print_outcomes(report: Any) -> None:
    would = "would " if report.dry_run else ""
    for out in report.outcomes:
        if out.action in ("write", "review"):
            verb = f"{would}write" if out.action == "write" else f"{would}send to review"
            print(f"{verb}: {out.path} ({out.type}) <- {out.source}")
        elif out.action == "skip":
            print(f"skipped: {out.source}: {out.message}")
        else:
            print(f"refused: {out.source}: {out.reason} {_brief(out.message)}".rstrip())
        for note in out.notes:
            print(f"  note: {note}")
        for warning in out.warnings:
            print(f"  warning: {_brief(warning)}")
    for un in report.unimported:
        print(f"not imported: {un.source}: {un.message}")
    for atom_id, where in report.gone:
        print(
            f"no longer in its file: `{atom_id}` ({where}): its line was removed, or rewritten "
            f"past recognition; `memkit archive --apply {atom_id}` retires it"
        )


def _brief(message: str) -> str:
    """A gate verdict without the list of rules that fired (`memkit gate` shows it)."""
    return message.split("; fired:", 1)[0]


def _counted(counter: Any) -> str:
    return ", ".join(f"{reason} {n}" for reason, n in sorted(counter.items()))


def summary(report: Any) -> str:
    written = report.count("write") + report.count("review")
    verb = "would be written" if report.dry_run else "written"
    parts = [f"{written} {verb}"]
    if report.count("review"):
        parts[0] += f" ({report.count('review')} for review in shared/_pending/)"
    if report.replacing:
        parts[0] += f", {report.replacing} replacing a line its file changed"
    refused = report.reasons("refuse")
    if refused:
        parts.append(f"{sum(refused.values())} refused ({_counted(refused)})")
    skipped = report.reasons("skip")
    if skipped:
        parts.append(f"{sum(skipped.values())} skipped ({_counted(skipped)})")
    line = (
        f"{report.format}: {report.files} file(s), {len(report.outcomes)} candidate(s): "
        + "; ".join(parts)
    )
    if report.unimported:
        reasons: dict[str, int] = {}
        for un in report.unimported:
            reasons[un.reason] = reasons.get(un.reason, 0) + 1
        line += f"; {len(report.unimported)} file(s) not imported ({_counted(reasons)})"
    if report.gone:
        line += f"; {len(report.gone)} atom(s) no longer in their file"
    if written and not report.dry_run:
        line += "; review the new files, then commit them"
    return line
