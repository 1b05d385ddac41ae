"""memkit review: atoms waiting in shared/_pending/ — list, show with what the checks find,
propose a change to an approved atom, approve (retiring what it supersedes) or reject."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memkit import git
from memkit.admission.decide import read_admitted
from memkit.checks.validate import admitted_text
from memkit.config import load_config
from memkit.errors import MemkitError, UsageError
from memkit.review import (
    PENDING,
    Proposal,
    approve,
    concerns,
    pending_path,
    pending_paths,
    propose,
    settle_with,
)
from memkit.review import reject as reject_atom
from memkit.reviewlog import REVIEW_LOG, is_revision
from memkit.roles import identify
from memkit.safety.secrets import redact_secrets
from memkit.where import memory_root


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "review",
        help="list, show, propose, approve or reject atoms waiting for review",
        description="Atoms of sensitive types wait in shared/_pending/ until management "
        "approves (moves them into shared/, retiring what they supersede) or rejects them "
        "(moves them into archive/rejected/ with the reason). `propose ID` turns your edit of "
        "an approved atom into a pending atom that supersedes it. Nothing is deleted; every "
        f"decision is appended to {REVIEW_LOG}. Commit the result.",
    )
    parser.add_argument(
        "action",
        nargs="?",
        default="list",
        choices=("list", "show", "propose", "approve", "reject"),
    )
    parser.add_argument("id", nargs="?", help="atom id (show, propose, approve, reject)")
    parser.add_argument("--reason", help="why (required for reject)")
    parser.add_argument(
        "--supersedes",
        nargs="+",
        default=[],
        metavar="OLD",
        help="approve: ids of the atoms this one replaces (linked and retired in the same change)",
    )
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    parser.set_defaults(func=run)


def _committed_by(root: Path, relpath: str) -> str:
    """Who committed the file first (an atom need not name its author); "?" if nobody yet."""
    out = git.output(root, "log", "--diff-filter=A", "--follow", "--format=%ae", "--", relpath)
    return out.split()[-1] if out else "?"


def run(args: argparse.Namespace) -> int:
    root = memory_root(args.repo)
    if args.action == "list":
        return _list(root)
    if not args.id:
        raise UsageError(f"`memkit review {args.action}` needs an atom id")
    if args.supersedes and args.action != "approve":
        raise UsageError("--supersedes goes with `memkit review approve`")
    if args.action == "show":
        return _show(root, args.id)
    who = identify(root)
    if args.action == "propose":
        print(_proposed(propose(root, args.id, who)))
        return 0
    config = load_config(root)
    if args.action == "reject":
        if not (args.reason or "").strip():
            raise UsageError("reject needs --reason TEXT")
        source, target = reject_atom(root, args.id, who, args.reason)
        print(
            f"rejected {args.id}: {source} -> {target}; commit it "
            f"(git commit -m 'review: reject {args.id}')"
        )
        return 0
    done = approve(root, args.id, who, config, args.supersedes)
    moved = f"{done.source} -> {done.target}" if done.source != done.target else done.target
    if done.revises:
        print(
            f"approved {args.id} as the new text of `{done.revises}`: {done.source} -> "
            f"{done.target} (one atom, one id, its history kept)"
        )
    else:
        print(f"approved {args.id}: {moved}")
    for path in done.retired:
        print(f"  retired {path} (status: superseded, superseded_by: {args.id})")
    for concern in done.concerns:
        print(f"  note: {redact_secrets(concern.message)}")
    print(f"commit it (git commit -m 'review: approve {args.id}')")
    return 0


def _proposed(made: Proposal) -> str:
    if made.retired_only:
        return (
            f"nothing to propose: your change to {made.restored} only marked it superseded, "
            "which management's approval of the atom that replaces it does; "
            f"{made.restored} is back as approved"
        )
    if not made.edited and made.again:
        return (
            f"`{made.id}` ({made.path}) already proposes a change to `{made.supersedes}`; "
            f"edit it there. {made.restored} is back as approved"
        )
    what = "your edit" if made.edited else "a copy to edit"
    verb = "updated the proposal" if made.again else "proposed"
    return (
        f"{verb} `{made.id}` ({made.path}, {what}), a change to `{made.supersedes}`; "
        f"{made.restored} is back as approved. Commit it "
        f"(git commit -m 'review: propose {made.id}'); a management member will "
        f"`memkit review approve {made.id}`, which writes it over `{made.supersedes}`"
    )


def _list(root: Path) -> int:
    paths = pending_paths(root)
    if not paths:
        print("nothing is waiting for review")
    config = load_config(root)
    for relpath in paths:
        parsed, codes = read_admitted(root, relpath, config)
        atom = parsed.atom
        title = (
            atom.title
            if atom and not codes
            else f"(refused by validation: {', '.join(codes)}; run memkit validate)"
        )
        author = atom.author if atom and atom.author else _committed_by(root, relpath)
        print(f"{relpath.removeprefix(PENDING).removesuffix('.md')}\t{title}\t{author}")
    return 0


def _show(root: Path, atom_id: str) -> int:
    relpath = pending_path(root, atom_id)
    if relpath is None:
        raise MemkitError(
            f"no atom `{atom_id}` is waiting in {PENDING}; `memkit review` lists what is"
        )
    print(admitted_text(root, relpath), end="")  # never a refused atom's text
    config = load_config(root)
    atom = read_admitted(root, relpath, config)[0].atom
    if atom is None:
        return 0
    found = concerns(root, atom, config)
    print("\n--- what the checks find if it is approved")
    for old in atom.supersedes:
        if is_revision(atom.id, old) and (root / f"shared/{old}.md").is_file():
            print(f"a new version of `{old}`: approving it writes it over shared/{old}.md")
        else:
            print(f"supersedes `{old}`: approving it retires `{old}`")
    for concern in found:
        line = concern.message  # it says what it is: contradicts …, duplicate of …, quality …
        if concern.blocks:
            line += f"\n  settle it: `{settle_with(atom_id, concern)}`"
        print(redact_secrets(line))
    if not found and not atom.supersedes:
        print("no contradiction, no duplicate: `memkit review approve " + atom_id + "`")
    return 0
