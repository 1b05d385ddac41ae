"""memkit review: management approves or rejects atoms waiting in shared/_pending/."""

from __future__ import annotations

import argparse
import datetime as dt
import json
from pathlib import Path
from typing import Any

from memkit import git
from memkit.atom.write import update_frontmatter
from memkit.checks.admission import read_admitted
from memkit.checks.roles import REVIEW_LOG
from memkit.checks.validate import admitted_text
from memkit.config import load_config
from memkit.errors import MemkitError, UsageError
from memkit.files import write_atomic
from memkit.repo import find_root, list_atom_files
from memkit.roles import Identity, identify

PENDING = "shared/_pending/"
REJECTED = "archive/rejected/"


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "review",
        help="list, approve or reject atoms waiting for review",
        description="Atoms of sensitive types wait in shared/_pending/ until management "
        "approves (moves them into shared/) or rejects them (moves them into "
        "archive/rejected/ with the reason). Nothing is deleted; every decision is appended "
        f"to {REVIEW_LOG}. Commit the result.",
    )
    parser.add_argument(
        "action", nargs="?", default="list", choices=("list", "show", "approve", "reject")
    )
    parser.add_argument("id", nargs="?", help="atom id (show, approve, reject)")
    parser.add_argument("--reason", help="why (required for reject)")
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    parser.set_defaults(func=run)


def _committed_by(root: Path, relpath: str) -> str:
    """Who committed the file first (an atom need not name its author); "?" if nobody yet."""
    out = git.output(root, "log", "--diff-filter=A", "--follow", "--format=%ae", "--", relpath)
    return out.split()[-1] if out else "?"


def pending_paths(root: Path) -> list[str]:
    return [p for p in list_atom_files(root) if p.startswith(PENDING)]


def run(args: argparse.Namespace) -> int:
    root = find_root(args.repo)
    if args.action == "list":
        paths = pending_paths(root)
        if not paths:
            print("nothing is waiting for review")
        for relpath in paths:
            parsed, codes = read_admitted(root, relpath, load_config(root))
            atom = parsed.atom
            title = (
                atom.title
                if atom and not codes
                else f"(refused by validation: {', '.join(codes)}; run memkit validate)"
            )
            author = atom.author if atom and atom.author else _committed_by(root, relpath)
            print(f"{relpath.removeprefix(PENDING).removesuffix('.md')}\t{title}\t{author}")
        return 0
    if not args.id:
        raise UsageError(f"`memkit review {args.action}` needs an atom id")
    found = [p for p in pending_paths(root) if p.endswith(f"/{args.id}.md")]
    if not found:
        raise MemkitError(f"no atom `{args.id}` is waiting in {PENDING}")
    relpath = found[0]
    if args.action == "show":
        print(admitted_text(root, relpath), end="")  # never a refused atom's text
        return 0
    who = identify(root)
    if not who.is_management:
        raise MemkitError(
            f"only management may {args.action} atoms (you are `{who.user}`; "
            "management needs the whitelist entry and personal/<you>/role.md)"
        )
    if args.action == "reject" and not (args.reason or "").strip():
        raise UsageError("reject needs --reason TEXT")
    today = dt.date.today().isoformat()
    prefix = "shared/" if args.action == "approve" else REJECTED
    target = prefix + relpath.removeprefix(PENDING)
    if (root / target).exists():
        raise MemkitError(f"{target} already exists; resolve that first")
    if args.action == "reject":
        update_frontmatter(
            root / relpath,
            {
                "status": "archived",
                "rejected_reason": args.reason,
                "reviewed_by": who.user,
                "reviewed": today,
            },
        )
    _move(root, relpath, target)
    _log(root, who, args.action, args.id, moved=(relpath, target), reason=args.reason)
    done = {"approve": "approved", "reject": "rejected"}[args.action]
    print(
        f"{done} {args.id}: {relpath} -> {target}; commit it "
        f"(git commit -m 'review: {args.action} {args.id}')"
    )
    return 0


def _move(root: Path, source: str, target: str) -> None:
    if not git.move(root, source, target):
        git.run(root, "add", "--", target)  # the review commit takes it in


def _log(
    root: Path,
    who: Identity,
    action: str,
    atom_id: str,
    *,
    moved: tuple[str, str],
    reason: str | None,
) -> None:
    source, target = moved
    path = root / REVIEW_LOG
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    entry = {
        "time": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "action": action,
        "id": atom_id,
        "by": who.user,
        "from": source,
        "to": target,
    }
    if reason:
        entry["reason"] = reason
    write_atomic(path, old + json.dumps(entry, ensure_ascii=False) + "\n")
    git.run(root, "add", "--", REVIEW_LOG)
