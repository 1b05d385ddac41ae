"""Day one: making a memory repository (`memkit init PATH`) and joining one (`--join`).

Both end in a state that works without a manual fix: `create` leaves a committed repository
whose creator is management (whitelist entry and own declaration), made through the real
hooks; `join` leaves a clone with its hooks, a built index and the member's own role
declaration, ready to commit.
"""

from __future__ import annotations

import logging
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from memkit import cloneguard
from memkit.config import CONFIG_NAME
from memkit.errors import MemkitError, UsageError
from memkit.files import write_atomic
from memkit.git import has_commits, output, run, succeeds
from memkit.index import refresh
from memkit.repo import git_toplevel
from memkit.roles import MANAGEMENT, Author, git_author, identify, slug
from memkit.template import copy_template, top_level_names

log = logging.getLogger(__name__)

HOOK_TYPES = ("pre-commit", "post-checkout", "post-merge", "post-rewrite")

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
    rebases: bool = False  # `git pull` was set to rebase here (the person had not chosen)
    notes: tuple[str, ...] = ()  # what the clone's guard could not do (`memkit.cloneguard`)


def join(path: Path, *, install_hooks: bool = True, roles: list[str] | None = None) -> Joined:
    """Set up a fresh clone: hooks, the index, the member's own role declaration, and how
    `git pull` joins their commits with the team's."""
    if not (path / CONFIG_NAME).is_file():
        raise UsageError(not_a_memory(path))
    if git_toplevel(path) is None:
        raise MemkitError(f"{path} is not a git repository")
    require_author(path)
    check_state_folder(path)
    notes = install_git_hooks(path) if install_hooks else []
    rebases = pull_rebases(path)
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
    return Joined(
        who.user, who.email, who.known, tuple(listed), written, stats.atoms, rebases, tuple(notes)
    )


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


def not_a_memory(path: Path) -> str:
    """Why `path` is no memory repository, and the step that makes it one: in a clone whose
    checkout failed (the remote's HEAD names a branch it does not have), checking out the
    branch that holds the memory; elsewhere, making a new one."""
    if git_toplevel(path) is not None and not has_commits(path):
        refs = output(path, "for-each-ref", "--format=%(refname:short)", "refs/remotes/")
        holding = [
            ref
            for ref in (refs or "").split()
            if not ref.endswith("/HEAD")
            and succeeds(path, "cat-file", "-e", f"{ref}:{CONFIG_NAME}")
        ]
        if holding:
            branch = holding[0].split("/", 1)[1]
            return (
                f"{path} is a clone with nothing checked out (its remote's HEAD names a branch "
                f"the remote does not have); the memory is on `{holding[0]}`: check it out "
                f"with `git checkout {branch}`, then run `memkit init --join` again"
            )
    return (
        f"{path} has no {CONFIG_NAME}: not a memory repository (use `memkit init PATH` to make one)"
    )


def pull_rebases(path: Path) -> bool:
    """Make `git pull` rebase this clone's commits onto the team's, unless the person chose
    how pulls reconcile (`pull.rebase` or `pull.ff`, in any git config). Without a choice,
    git 2.27+ stops the first pull after a local commit (a member's role declaration,
    committed while management listed them) with "Need to specify how to reconcile
    divergent branches". Returns whether it set it."""
    if output(path, "config", "--get", "pull.rebase") or output(path, "config", "--get", "pull.ff"):
        return False
    run(path, "config", "--local", "pull.rebase", "true")
    # A commit the hooks refused leaves its files staged; the pull that brings the fix (a
    # role management just gave) then carries them across instead of stopping.
    if not output(path, "config", "--get", "rebase.autoStash"):
        run(path, "config", "--local", "rebase.autoStash", "true")
    return True


# Inserted into each git hook pre-commit installs, just after its templated lines: the hooks
# run `memkit` from PATH, and a person commits with memkit's environment active or not.
_HOOK_MARK = "# memkit: find memkit"
_HOOK_END = "# memkit: end"
_HOOK_LOOKUP = """{mark} (written by `memkit init`; `memkit init --join` writes it again)
if ! command -v memkit >/dev/null 2>&1; then
    if [ -x {memkit} ]; then
        PATH={bindir}:"$PATH"; export PATH
    else
        printf '%s\\n' 'memkit: `memkit` is not on PATH, nor where it was installed:' \\
            {memkit} \\
            'activate the virtual environment memkit is installed in (`. <venv>/bin/activate`)' \\
            'or install memkit with pipx (`pipx install "git+<memkit git URL>"`),' \\
            'then run the git command again' 1>&2
        {missing}
    fi
fi
{end}
"""


def install_git_hooks(path: Path, bindir: Path | None = None) -> list[str]:
    """pre-commit's git hooks, each taught where memkit is (`bindir`, default this memkit's
    own): they work with memkit's virtual environment inactive, and say what to do when
    memkit is gone rather than pre-commit's bare "Executable `memkit` not found". A commit
    is then refused; checkout, merge and rebase go on (only the index's refresh is lost).
    Then the clone's guard (`memkit.cloneguard`); returns what it could not do."""
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
    bindir = bindir or Path(sys.executable).parent
    folder = hooks_folder(path) or path / ".git" / "hooks"
    for hook_type in HOOK_TYPES:
        hook = folder / hook_type
        try:
            text = hook.read_text(encoding="utf-8")
        except OSError:
            continue
        write_atomic(hook, with_memkit_lookup(text, bindir, refuse=hook_type == "pre-commit"))
    return cloneguard.install(path)


def hooks_folder(path: Path) -> Path | None:
    found = output(path, "rev-parse", "--git-path", "hooks")
    if found is None:
        return None
    folder = Path(found)
    return folder if folder.is_absolute() else path / folder


def hooked_memkit(path: Path) -> Path | None:
    """The memkit the pre-commit hook falls back on when `memkit` is not on PATH, if any."""
    folder = hooks_folder(path)
    try:
        script = (folder / "pre-commit").read_text(encoding="utf-8") if folder else ""
    except OSError:
        return None
    lines = script.split("\n")
    for i, line in enumerate(lines):
        if line.startswith(_HOOK_MARK) and i + 2 < len(lines):
            words = shlex.split(lines[i + 2].strip().removesuffix("; then"))
            return Path(words[3]) if words[:3] == ["if", "[", "-x"] and len(words) > 3 else None
    return None


def with_memkit_lookup(script: str, bindir: Path, *, refuse: bool) -> str:
    """`script` (a hook pre-commit wrote) with memkit's lookup after its templated lines,
    replacing an earlier one; unchanged if it has no such lines."""
    lines = script.split("\n")
    if _HOOK_MARK in script and _HOOK_END in lines:
        start = next(i for i, line in enumerate(lines) if line.startswith(_HOOK_MARK))
        del lines[start : lines.index(_HOOK_END) + 1]
    try:
        at = lines.index("# end templated") + 1
    except ValueError:
        return script
    memkit = bindir / "memkit"
    block = _HOOK_LOOKUP.format(
        mark=_HOOK_MARK,
        end=_HOOK_END,
        memkit=shlex.quote(str(memkit)),
        bindir=shlex.quote(str(bindir)),
        missing="exit 1" if refuse else "exit 0  # the git command itself went through",
    )
    return "\n".join([*lines[:at], *block.rstrip("\n").split("\n"), *lines[at:]])


def hook_env() -> dict[str, str]:
    """The environment for git commands we run: memkit's own bin folder first on PATH."""
    env = dict(os.environ)
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    return env
