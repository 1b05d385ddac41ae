"""memkit candidates [list|accept|reject]: what capture found in your sessions, waiting for you."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from memkit.atom import TYPES
from memkit.capture import queue
from memkit.capture.accept import accept, reject
from memkit.commands.add import report
from memkit.where import memory_root

DROPPED = {
    "below": "below the threshold",
    "model": "refused by the model",
    "secret": "holding a secret",
    "private": "holding <private> text",
    "injection": "holding an order to the agent",
    "quoted": "quoted from what the agent read (a page, a file, an output)",
}


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "candidates",
        help="list, accept or reject what capture found in your Claude Code sessions",
        description="Capture finds decisions, conventions, preferences and pitfalls in your "
        "prompts and sessions and keeps them here, local to you (.memkit/capture/, never "
        "committed). Accepting one writes an atom through the same checks as `memkit add`; "
        "`memkit undo ID` takes it back. See docs/capture.md.",
    )
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    verbs = parser.add_subparsers(dest="action", metavar="ACTION")
    listing = verbs.add_parser("list", help="candidates waiting (the default)")
    listing.add_argument("--json", action="store_true", help="as JSON")
    listing.add_argument("--all", action="store_true", help="also those settled before")
    accept = verbs.add_parser("accept", help="write a candidate as an atom (as `memkit add`)")
    accept.add_argument("id", help="the candidate's id, as `memkit candidates list` shows it")
    accept.add_argument("--scope", help="shared, role:<name>, personal[:<user>] (default: its own)")
    accept.add_argument("--type", choices=TYPES, help="default: the type capture proposed")
    accept.add_argument("--text", help="the atom's text instead of the statement as captured")
    accept.add_argument("--dry-run", action="store_true", help="show what would be written")
    accept.add_argument("--json", action="store_true", help="print the outcome as JSON")
    reject = verbs.add_parser("reject", help="drop a candidate; it is not offered again")
    reject.add_argument("id")
    reject.add_argument("--reason", default="", help="why, kept with the candidate")
    parser.set_defaults(func=run, action="list", json=False, all=False)


def run(args: argparse.Namespace) -> int:
    root = memory_root(args.repo)
    if args.action == "accept":
        return _accept(root, args)
    if args.action == "reject":
        cand = reject(root, args.id, args.reason.strip())
        print(f"rejected {cand.id}: it will not be offered again")
        return 0
    return _list(root, as_json=args.json, everything=args.all)


def _accept(root: Path, args: argparse.Namespace) -> int:
    cand, outcome = accept(
        root, args.id, scope=args.scope, atom_type=args.type, text=args.text, dry_run=args.dry_run
    )
    code = report(outcome, as_json=args.json, dry_run=args.dry_run)
    if outcome.written and not args.json:
        print(f"candidate {cand.id} accepted; `memkit undo {outcome.id}` takes it back")
    elif outcome.errors and not args.json:
        print(f"candidate {cand.id} still waits: fix what the findings say (--text, --type)")
    return code


def _list(root: Path, *, as_json: bool, everything: bool) -> int:
    waiting = queue.pending(root)
    settled = queue.settled(root) if everything else []
    stats = queue.read_stats(root)
    if as_json:
        data = {
            "candidates": [c.as_json() for c in waiting],
            "dropped": stats,
        }
        if everything:
            data["settled"] = [c.as_json() for c in settled]
        print(json.dumps(data, ensure_ascii=False, indent=1))
        return 0
    if waiting:
        print(
            f"{len(waiting)} candidate(s); `memkit candidates accept ID` writes one as an atom, "
            "`memkit candidates reject ID` drops it:"
        )
    else:
        print("no candidates wait")
    for cand in waiting:
        print(f"{cand.id}  {cand.score:.2f}  {cand.type:<10} {cand.scope:<8} {cand.statement}")
        where = ", ".join(
            f"{s.get('event', '?')} in session {s.get('session', '?')[:8]}"
            + (f" line {s['line']}" if s.get("line") else "")
            for s in cand.sources[:3]
        )
        print(f"          {cand.level}: {cand.why}; from {where}")
        if cand.detail.get("held"):
            after = cand.detail.get("after")
            seen = f"; the agent had just used {after}" if after else ""
            print(f"          held for you: {cand.detail['held']}{seen}")
    for cand in settled:
        atom = f" -> {cand.atom['path']}" if cand.atom.get("path") else ""
        reason = f" ({cand.reason})" if cand.reason else ""
        print(f"{cand.id}  {cand.status}{atom}{reason}: {cand.statement}")
    dropped = [f"{n} {DROPPED.get(k, k)}" for k, n in sorted(stats.items()) if n]
    if dropped:
        print("dropped so far: " + ", ".join(dropped))
    return 0
