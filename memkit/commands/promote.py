"""memkit promote: atoms whose confirmations in use earn them a higher tier."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from memkit.config import load_config
from memkit.lifecycle.catalog import usable_entries
from memkit.lifecycle.promote import apply_promotion, promotions
from memkit.lifecycle.settings import lifecycle_settings
from memkit.lifecycle.team import read_team_usage
from memkit.safety.secrets import redact_secrets
from memkit.where import memory_root


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "promote",
        help="propose tier promotions earned by use (tentative -> observed -> fixed)",
        description="List atoms whose confirmations across sessions (this clone's usage log "
        "and the team's usage/*.json exports) cross the thresholds in memkit.yaml "
        "(lifecycle.promote), with the evidence. --apply edits `confidence:` in the working "
        "tree, keeping comments, key order and quoting; review it and commit it.",
    )
    parser.add_argument("--apply", action="store_true", help="edit the atoms' `confidence:`")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    root = memory_root(args.repo)
    settings = lifecycle_settings(load_config(root))
    team = read_team_usage(root)
    for problem in team.problems:
        print(redact_secrets(f"memkit: left out {problem}"), file=sys.stderr)
    found = promotions(usable_entries(root), team, settings.promote)
    failed: list[str] = []
    if args.apply:
        for promotion in list(found):
            try:
                apply_promotion(root, promotion)
            except (OSError, ValueError) as exc:
                failed.append(f"{promotion.entry.shown[1]}: not changed ({exc})")
                found.remove(promotion)
    if args.json:
        doc = {"applied": args.apply, "promotions": [p.as_json() for p in found]}
        print(json.dumps({**doc, "failed": failed}, ensure_ascii=False))
        return 1 if failed else 0
    if not found and not failed:
        print("memkit promote: no atom has earned a higher tier yet")
        return 0
    verb = "promoted" if args.apply else "would promote"
    for p in found:
        shown_id, shown_path = p.entry.shown
        print(
            f"{verb} {shown_id}: {p.entry.confidence} -> {p.target}  ({shown_path}; {p.evidence})"
        )
    for line in failed:
        print(line)
    if args.apply and found:
        print(f"memkit promote: {len(found)} atom(s) edited; review with `git diff`, then commit")
    elif found:
        print(f"memkit promote: {len(found)} candidate(s); `memkit promote --apply` edits them")
    return 1 if failed else 0
