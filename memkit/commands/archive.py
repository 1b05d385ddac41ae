"""memkit archive: suggest, archive and restore atoms that have aged out."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path
from typing import Any

from memkit.config import load_config
from memkit.errors import MemkitError, UsageError
from memkit.lifecycle.archive import (
    EXPIRED,
    archive_atom,
    put_back_deleted,
    restore_atom,
    suggestions,
)
from memkit.lifecycle.catalog import usable_entries
from memkit.lifecycle.settings import lifecycle_settings
from memkit.lifecycle.team import read_team_usage
from memkit.safety.secrets import redact_secrets
from memkit.where import memory_root


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "archive",
        help="suggest, archive or restore atoms that aged out",
        description="--suggest (the default) lists live atoms whose effectiveness, "
        "(s + 1) / (s + f + 2) x 0.5^(days unused / half-life), is below the threshold and "
        "that nobody used for a while (lifecycle.archive in memkit.yaml), and atoms past their "
        "`expires` date. --apply IDS moves atoms to archive/ (`git mv`) with `status: "
        "archived` and the reason; --sweep does it for every expired atom; --restore ID "
        "brings one back. Archived atoms are never injected; `memkit search --all` finds them.",
    )
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--suggest", action="store_true", help="list candidates (the default)")
    what.add_argument("--apply", nargs="+", metavar="ID", help="archive these atoms")
    what.add_argument("--sweep", action="store_true", help="archive every expired atom")
    what.add_argument("--restore", metavar="ID", help="bring an archived atom back")
    parser.add_argument("--reason", help="why (with --apply; default: the suggestion's reason)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.reason is not None and not args.apply:
        raise UsageError("--reason goes with --apply")
    root = memory_root(args.repo)
    today = dt.date.today()
    entries = usable_entries(root)
    by_id = {e.id: e for e in entries}

    def say(text: str) -> None:
        print(redact_secrets(text))

    if args.restore:
        entry = by_id.get(args.restore)
        if entry is None:
            raise MemkitError(f"no atom with id `{args.restore}`")
        target = restore_atom(root, entry)
        say(f"restored {entry.id}: {entry.path} -> {target}; review it, then commit")
        return 0
    settings = lifecycle_settings(load_config(root)).archive
    team = read_team_usage(root)
    for problem in team.problems:
        print(redact_secrets(f"memkit: left out {problem}"), file=sys.stderr)
    found = suggestions(entries, team, settings, today)
    if not args.apply and not args.sweep:
        if args.json:
            # as_json redacts ids and paths: one pass over a large output costs ~0.5 s.
            print(json.dumps({"suggestions": [s.as_json() for s in found]}, ensure_ascii=False))
            return 0
        if not found:
            print("memkit archive: nothing to archive")
            return 0
        for s in found:
            shown_id, shown_path = s.entry.shown
            print(f"{shown_id}  {shown_path}: {s.reason}")
        ids = " ".join(s.entry.shown[0] for s in found[:10])
        print(
            f"memkit archive: {len(found)} candidate(s); archive them with "
            f"`memkit archive --apply {ids}{' …' if len(found) > 10 else ''}`"
        )
        return 0
    reasons = {s.entry.id: s.reason for s in found}
    wanted = [s.entry.id for s in found if s.kind == EXPIRED] if args.sweep else args.apply
    missing = [i for i in wanted if i not in by_id]
    # Archiving an atom that the change deletes (MK024's advice) archives it as committed.
    put_back = [put_back_deleted(root, i) for i in missing] if args.apply else []
    if any(put_back):
        by_id = {e.id: e for e in usable_entries(root)}
        missing = [i for i in wanted if i not in by_id]
    if missing:
        raise MemkitError(f"no atom with id {', '.join(f'`{i}`' for i in missing)}")
    done = []
    for atom_id in dict.fromkeys(wanted):
        reason = args.reason or reasons.get(atom_id) or "archived by hand"
        target = archive_atom(root, by_id[atom_id], f"{today.isoformat()}: {reason}")
        done.append({"id": atom_id, "from": by_id[atom_id].path, "to": target, "reason": reason})
    if args.json:
        say(json.dumps({"archived": done}, ensure_ascii=False))
        return 0
    for item in done:
        say(f"archived {item['id']}: {item['from']} -> {item['to']} ({item['reason']})")
    if done:
        print(f"memkit archive: {len(done)} atom(s) moved; review with `git status`, then commit")
    else:
        print("memkit archive: nothing expired to sweep")
    return 0
