"""memkit init PATH | memkit init --join [PATH]: make or join a memory repository."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from memkit.index import refresh
from memkit.onboard import create, join


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "init",
        help="make a new memory repository, or join one (--join)",
        description="Make a new memory repository at PATH from memkit's template: a git repo "
        "with memkit.yaml, the scope folders, MEMORY.md, pre-commit hooks installed, you as "
        "management, and a first commit made through the hooks. With --join, in a fresh clone: "
        "install the hooks, build the index and write your own personal/<you>/role.md.",
    )
    parser.add_argument("path", nargs="?", type=Path, default=Path(), help="default: here")
    parser.add_argument("--join", action="store_true", help="set up a clone of an existing one")
    parser.add_argument(
        "--role",
        action="append",
        help="with --join: a role to declare in your role.md (repeatable; default: the roles "
        "shared/_roles.md gives you)",
    )
    parser.add_argument("--no-hooks", action="store_true", help="do not install git hooks")
    parser.add_argument("--no-commit", action="store_true", help="do not make the first commit")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    path = Path(os.path.normpath(args.path.absolute()))
    if args.join:
        return _run_join(path, args)
    committed = create(path, install_hooks=not args.no_hooks, commit=not args.no_commit)

    refresh(path, quiet=True)
    print(f"memkit: made a memory repository at {path}")
    if committed:
        print("  committed it through the hooks; you are its first management member")
    else:
        print("  next: git add -A && git commit -m 'memkit init'")
    print("  write atoms in shared/, roles/<role>/ or personal/<you>/ and commit them;")
    print("  add teammates with `memkit roles add USER --email E --role R`")
    _warn_path()
    return 0


def _run_join(path: Path, args: argparse.Namespace) -> int:
    joined = join(path, install_hooks=not args.no_hooks, roles=args.role)
    print(f"memkit: joined the memory repository at {path} as `{joined.user}`")
    print(f"  hooks installed, index built ({joined.atoms} atom(s))")
    for note in joined.notes:
        print(f"  warning: {note}")
    if joined.known:
        print(f"  shared/_roles.md gives you: {', '.join(joined.roles) or 'no role'}")
    else:
        print(
            "  you are not in shared/_roles.md yet: ask a management member to run "
            f"`memkit roles add {joined.user} --email {joined.email} --role <role>`"
        )
    if "management" in joined.roles and joined.declaration is not None:
        print(
            "  shared/_roles.md lists you as management: to act as management, declare it "
            f"yourself by adding `management` to the roles in {joined.declaration}"
        )
    if joined.rebases:
        print(
            "  `git pull` rebases your commits onto the team's here (pull.rebase), so a pull "
            "after a commit of yours goes through"
        )
    if joined.declaration is not None:
        print(
            f"  wrote {joined.declaration}, your own role declaration: commit it with "
            f"`git add {joined.declaration} && git commit -m 'role: {joined.user}'`, "
            "then `git pull` and `git push`"
        )
    _warn_path()
    return 0


def _warn_path() -> None:
    if shutil.which("memkit") is None:
        print(
            "memkit: `memkit` is not on PATH: the git hooks use "
            f"{Path(sys.executable).parent / 'memkit'}; to run memkit in a shell, activate "
            "its virtual environment or install it with pipx",
            file=sys.stderr,
        )
