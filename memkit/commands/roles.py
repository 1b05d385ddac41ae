"""memkit roles check|whoami: role permissions of the current (or a given) person."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memkit.checks.roles import run_check
from memkit.repo import find_root
from memkit.roles import identify


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "roles",
        help="check role permissions of changed files; show who you are",
        description="`memkit roles check [FILES]` checks that the author may write the files "
        "(default: the staged ones); `memkit roles whoami` shows the identity and roles used.",
    )
    parser.add_argument("action", choices=("check", "whoami"))
    parser.add_argument("files", nargs="*", help="changed files (check)")
    parser.add_argument("--actor", help="user name or email (CI: the pull-request author)")
    parser.add_argument("--base", default="HEAD", help="revision whose whitelist applies")
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.action == "check":
        return run_check(args.repo, args.files, actor=args.actor, base=args.base)
    root = find_root(args.repo)
    who = identify(root, args.actor, rev=args.base)
    print(f"user: {who.user}")
    print(f"email: {who.email or '-'}")
    print(f"on the whitelist: {'yes' if who.known else 'no'}")
    print(f"roles: {', '.join(sorted(who.roles)) or '-'}")
    print(f"declared in personal/{who.user}/role.md: {', '.join(sorted(who.declared)) or '-'}")
    print(f"management: {'yes' if who.is_management else 'no'}")
    print(f"recall serves: {', '.join(sorted(who.readable_scopes()))}")
    return 0
