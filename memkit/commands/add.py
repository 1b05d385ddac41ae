"""memkit add TEXT: write a new atom through the same checks as a commit."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from memkit.add import AddOutcome, Draft, add_atom
from memkit.atom import CONFIDENCES, TYPES
from memkit.lifecycle.evidence import agent_session, note_written
from memkit.where import memory_root


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "add",
        help="write a new atom through the write gate",
        description="Write TEXT as a new atom: id from the title, frontmatter filled in, author "
        "from git (the identity your commits get). Refuses junk, secrets and duplicates with "
        "the reason; never overwrites a file. Safe to call from an agent.",
    )
    parser.add_argument("text", help="what the atom says")
    parser.add_argument("--type", default="fact", choices=TYPES)
    parser.add_argument(
        "--confidence",
        choices=CONFIDENCES,
        help="default: tentative; observed for a pitfall that passes the write gate",
    )
    parser.add_argument(
        "--scope",
        default="shared",
        help="shared (default), role:<name> or personal[:<user>]",
    )
    parser.add_argument("--title", help="default: the first sentence of TEXT")
    parser.add_argument("--trigger", action="append", default=[], help="repeatable")
    parser.add_argument(
        "--supersedes",
        action="append",
        default=[],
        metavar="ID",
        help="an atom this one replaces (repeatable): settles a contradiction with it",
    )
    parser.add_argument("--dry-run", action="store_true", help="show what would be written")
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON")
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    root = memory_root(args.repo)
    draft = Draft(
        text=args.text,
        type=args.type,
        confidence=args.confidence,
        scope=args.scope,
        title=args.title,
        triggers=tuple(args.trigger),
        supersedes=tuple(args.supersedes),
    )
    outcome = add_atom(root, draft, dry_run=args.dry_run)
    if outcome.written:
        note_written(root, agent_session(), outcome.path)  # the agent's own, in a session
    return report(outcome, as_json=args.json, dry_run=args.dry_run)


def report(outcome: AddOutcome, *, as_json: bool, dry_run: bool) -> int:
    """Print what `add_atom` did (also for `memkit candidates accept`); the exit code."""
    if as_json:
        print(json.dumps(outcome.as_json(), ensure_ascii=False))
        return 1 if outcome.errors else 0
    if dry_run:
        print(outcome.content, end="")
    for line in outcome.findings:
        print(line)
    # A refused or warned score is already a finding: say it once.
    if outcome.explain is not None and not any(outcome.explain in f for f in outcome.findings):
        print(f"{outcome.path}: {outcome.explain}")
    if outcome.written and outcome.pending_review and outcome.contradicts:
        print(
            f"wrote {outcome.path}: it contradicts a live atom, so it waits for review instead "
            f"of becoming a second truth; commit it, and a management member runs "
            f"`memkit review approve {outcome.id}`"
        )
    elif outcome.written and outcome.pending_review:
        print(
            f"wrote {outcome.path}: {outcome.review_reason}; commit it, and a management "
            f"member runs `memkit review approve {outcome.id}`"
        )
    elif outcome.written:
        print(f"wrote {outcome.path}; review it, then commit it")
    elif outcome.errors:
        print(f"refused: {outcome.path} was not written")
    return 1 if outcome.errors else 0
