"""Day one: making a memory repository (`memkit init PATH`) and joining one (`--join`).

Both end in a state that works without a manual fix: `create` leaves a committed repository
whose creator is management (whitelist entry and own declaration), made through the real
hooks; `join` leaves a clone with its hooks, a built index and the member's own role
declaration, ready to commit.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from memkit import cloneguard
from memkit.config import CONFIG_NAME
from memkit.errors import MemkitError, UsageError
from memkit.files import write_atomic
from memkit.git import output, run
from memkit.index import refresh
from memkit.repo import git_toplevel
from memkit.roles import MANAGEMENT, Author, git_author, identify, slug
from memkit.template import copy_template, top_level_names

log = logging.getLogger(__name__)

NO_IDENTITY = (
    "git does not know who you are, and memkit needs it: the author of a commit decides what "
    "it may change. Set it for git, e.g.\n"
    '  git config --global user.name "Your Name"\n'
    "  git config --global user.email you@example.com\n"
    "(or the GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL and GIT_COMMITTER_NAME/GIT_COMMITTER_EMAIL "
    "environment variables), then run this again"
)


def require_author(path: Path) -> Author:
    """The git author in `path` (or the nearest folder that exists); a clear stop if none."""
    here = path
    while not here.is_dir():
        here = here.parent
    author = git_author(here, explicit=True)
    if author is None:
        raise MemkitError(NO_IDENTITY)
    return author


def user_name(author: Author) -> str:
    return slug(author.name) or slug(author.email.split("@", 1)[0]) or "me"


def declaration(user: str, roles: list[str]) -> str:
    listed = ", ".join(roles)
    note = (
        ""
        if roles
        else "\nYou declare no role yet: add yours between the brackets once management lists "
        "you in shared/_roles.md.\n"
    )
    return f"# Role declaration of {user}\n{note}\nroles: [{listed}]\n"


def create(path: Path, *, install_hooks: bool = True, commit: bool = True) -> bool:
    """Make the repository; returns whether the first commit was made."""
    if (path / CONFIG_NAME).exists():
        raise UsageError(f"{path} is already a memory repository; use `memkit init --join`")
    if path.exists() and not path.is_dir():
        raise UsageError(f"{path} exists and is not a folder")
    if path.is_dir():
        names = top_level_names()
        clashes = [p.name for p in path.iterdir() if p.name != ".git" and p.name in names]
        if clashes:
            raise UsageError(
                f"{path} already has {', '.join(sorted(clashes))}; choose an empty folder"
            )
    author = require_author(path)
    path.mkdir(parents=True, exist_ok=True)
    top = git_toplevel(path)
    if top is None:
        # `main` whatever git's default (git 2.39 still says `master`): the README's
        # `git push -u origin main` must work on every machine.
        run(path, "init", "--quiet", "--initial-branch=main")
        top = path
    user = user_name(author)
    copy_template(path, {"{user}": user, "{email}": author.email})
    # The first member of the whitelist declares the role too: management needs both.
    write_atomic(path / "personal" / user / "role.md", declaration(user, [MANAGEMENT]))
    if top.resolve() != path.resolve():
        log.warning(
            "%s is inside the git repository %s: add memkit's hooks to that "
            "repository's .pre-commit-config.yaml yourself",
            path,
            top,
        )
        return False
    if install_hooks:
        install_git_hooks(path)
    if not commit:
        return False
    run(path, "add", "-A")
    # Through the hooks just installed: the first commit is checked like every other one.
    run(path, "commit", "--quiet", "-m", "memkit init: new memory repository", env=hook_env())
    return True


@dataclass(frozen=True)
class Joined:
    user: str
    email: str
    known: bool  # on the whitelist at HEAD
    roles: tuple[str, ...]  # what the whitelist gives
    declaration: str | None  # the role.md written for the member to commit, if any
    atoms: int  # in the index just built
    notes: tuple[str, ...] = ()  # what the clone's guard could not do (`memkit.cloneguard`)


def join(path: Path, *, install_hooks: bool = True, roles: list[str] | None = None) -> Joined:
    """Set up a fresh clone: hooks, the index, and the member's own role declaration."""
    if not (path / CONFIG_NAME).is_file():
        raise UsageError(
            f"{path} has no {CONFIG_NAME}: not a memory repository "
            "(use `memkit init PATH` to make one)"
        )
    if git_toplevel(path) is None:
        raise MemkitError(f"{path} is not a git repository")
    require_author(path)
    check_state_folder(path)
    notes = install_git_hooks(path) if install_hooks else []
    (path / ".memkit").mkdir(exist_ok=True)

    stats = refresh(path, quiet=not sys.stderr.isatty())  # a progress bar on a terminal
    who = identify(path)
    listed = sorted(who.roles)
    relpath = f"personal/{who.user}/role.md"
    written = None
    if not (path / relpath).exists():
        # Management is never declared for someone: accepting it is the member's own act
        # (`--role management`), the second half of what makes management.
        default = [r for r in listed if r != MANAGEMENT]
        declared = [slug(r) for r in roles] if roles is not None else default
        write_atomic(path / relpath, declaration(who.user, [r for r in declared if r]))
        written = relpath
    return Joined(who.user, who.email, who.known, tuple(listed), written, stats.atoms, tuple(notes))


def check_state_folder(path: Path) -> None:
    """A clear stop when `.memkit` is not a folder: a commit put a file (or a link) there,
    which git checked out in place of this clone's own state."""
    state = path / ".memkit"
    if not state.is_symlink() and (state.is_dir() or not state.exists()):
        return
    tracked = bool(output(path, "ls-files", "--", ".memkit"))
    how = (
        "the repository tracks it (a commit put it there, refused by review as MK208)"
        if tracked
        else "it is not a folder"
    )
    raise MemkitError(
        f"{state} is where memkit keeps this clone's own state, and {how}. Ask a management "
        "member to remove it from the branch (`git rm -r --cached .memkit`, then commit); "
        "here, move it aside (`mv .memkit .memkit.from-git`) and run this again"
    )


def install_git_hooks(path: Path) -> list[str]:
    """pre-commit's hooks, then the clone's guard (`memkit.cloneguard`); returns its notes."""
    # Run pre-commit from memkit's own environment: it is a dependency, maybe not on PATH.
    result = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"],
        cwd=path,
        capture_output=True,
        text=True,
        check=False,
        env=hook_env(),
    )
    if result.returncode != 0:
        raise MemkitError(f"pre-commit install failed: {(result.stdout + result.stderr).strip()}")
    return cloneguard.install(path)


def hook_env() -> dict[str, str]:
    """The environment for git commands we run: memkit's own bin folder first on PATH."""
    env = dict(os.environ)
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    return env
