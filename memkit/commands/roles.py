"""memkit roles check|whoami|add: role permissions, the identity memkit sees, adding a member."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memkit.checks.roles import describe, run_check
from memkit.errors import MemkitError, UsageError
from memkit.files import write_atomic
from memkit.git import has_commits, show
from memkit.roles import ROLES_FILE, declared_roles, identify, parse_roles
from memkit.where import memory_root

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.whitelist"}


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "roles",
        help="check role permissions of a change; show who you are; add a member",
        description="`memkit roles` lists the members of the committed whitelist; "
        "`memkit roles check [FILES]` checks that the author may make the staged "
        "change (or change FILES); `memkit roles whoami` shows the identity and roles used; "
        "`memkit roles add USER --email E --role R` lists a member in shared/_roles.md "
        "(management only).",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    listed = actions.add_parser("list", help="the members of the whitelist (the default)")
    check = actions.add_parser("check", help="may the author make this change?")
    check.add_argument("files", nargs="*", help="changed files (default: the staged change)")
    check.add_argument("--actor", help="user name or email (CI: the pull-request author)")
    check.add_argument("--base", default="HEAD", help="revision whose whitelist applies")
    whoami = actions.add_parser("whoami", help="the identity and roles memkit uses")
    whoami.add_argument("--actor", help="user name or email (default: the git author)")
    whoami.add_argument("--base", default="HEAD", help="revision whose whitelist applies")
    add = actions.add_parser(
        "add",
        help="list a member (or give a member more roles) in shared/_roles.md",
        description="Add USER to the whitelist, or add emails and roles to their row, keeping "
        "the rest of shared/_roles.md as it is. Only management may; commit the change.",
    )
    add.add_argument("user", help="the member's user name (their personal/<user>/ folder)")
    add.add_argument("--email", action="append", default=[], help="repeatable")
    add.add_argument("--role", action="append", default=[], help="repeatable")
    for sub in (listed, check, whoami, add):
        sub.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    parser.set_defaults(func=run, action="list", repo=None)


def run(args: argparse.Namespace) -> int:
    if args.action == "check":
        return run_check(args.repo, args.files, actor=args.actor, base=args.base)
    root = memory_root(args.repo)
    if args.action == "add":
        return _add(root, args)
    if args.action == "list":
        return _list(root)
    who = identify(root, args.actor, rev=args.base)
    print(f"user: {who.user}")
    print(f"email: {who.email or '-'}")
    print(f"on the whitelist: {'yes' if who.known else 'no'}")
    print(f"roles: {', '.join(sorted(who.roles)) or '-'}")
    print(f"declared in personal/{who.user}/role.md: {', '.join(sorted(who.declared)) or '-'}")
    print(f"management: {'yes' if who.is_management else 'no'}")
    print(f"recall serves: {', '.join(sorted(who.readable_scopes()))}")
    return 0


def _list(root: Path) -> int:
    """The whitelist as committed (what every check reads), one member a line."""
    members = parse_roles(show(root, "HEAD", ROLES_FILE) or "").members
    if not members:
        print(f"nobody is listed in {ROLES_FILE} at HEAD")
    for member in members:
        declared = declared_roles(root, member.user)
        roles = ", ".join(sorted(member.roles)) or "-"
        mgmt = "management" in member.roles and "management" not in declared
        note = f"\t(management not declared in personal/{member.user}/role.md)" if mgmt else ""
        print(f"{member.user}\t{', '.join(member.emails) or '-'}\t{roles}{note}")
    return 0


def _add(root: Path, args: argparse.Namespace) -> int:
    from memkit.whitelist import add_member

    if not args.email and not args.role:
        raise UsageError("give at least one --email or --role")
    if has_commits(root):
        who = identify(root)
        if not who.is_management:
            raise MemkitError(f"only management may change {ROLES_FILE} ({describe(who)})")
    path = root / ROLES_FILE
    text = path.read_text(encoding="utf-8") if path.is_file() else "# Roles\n"
    edited = add_member(text, args.user, args.email, args.role)
    member = parse_roles(edited).find(args.user)
    if member is None:
        raise MemkitError(f"{ROLES_FILE}: could not list {args.user}; edit the file by hand")
    if edited == text:
        print(f"memkit: {ROLES_FILE} already lists `{member.user}` with these; nothing changed")
        return 0
    write_atomic(path, edited)
    print(
        f"memkit: {ROLES_FILE}: `{member.user}` <{', '.join(member.emails) or 'no email'}>, "
        f"roles: {', '.join(sorted(member.roles)) or 'none'}; commit it "
        f"(`git commit -m 'roles: {member.user}' {ROLES_FILE}`)"
    )
    if "management" in member.roles:
        print(
            f"  {member.user} is management once they also declare it in "
            f"personal/{member.user}/role.md (`roles: [management]`)"
        )
    return 0
