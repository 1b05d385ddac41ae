"""One way to ask git, with one error type.

Every memkit module that runs git outside the index's listing goes through here: `run` when a
failure is the user's problem (it raises `GitError`, a `MemkitError` the CLI prints as one line),
`output` and `succeeds` when a failure only means "no" (a missing revision, a file git does not
track, no git at all). The index lists a repository with concurrent `git` processes of its own
(`memkit.index.manifest`), and a commit made for the user keeps its own timeout
(`memkit.mcp.saving`); both are deliberate exceptions. Standard library only: the hooks import it.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

from memkit.errors import MemkitError

__all__ = [
    "GitError",
    "has_commits",
    "ignored",
    "move",
    "name_status",
    "output",
    "rev_exists",
    "run",
    "show",
    "succeeds",
    "text",
    "tracked",
]


class GitError(MemkitError):
    """git refused or is missing; the message says which command and what git said."""


def _call(
    cwd: Path,
    args: tuple[str, ...],
    *,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    stdin: bytes | None = None,
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        check=False,
        env=None if env is None else dict(env),
        timeout=timeout,
    )


def run(
    cwd: Path,
    *args: str,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    stdin: bytes | None = None,
) -> bytes:
    """What `git ARGS` prints in `cwd`, as bytes; GitError when it fails or cannot start."""
    try:
        result = _call(cwd, args, env=env, timeout=timeout, stdin=stdin)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitError(f"git {' '.join(args)} could not run: {exc}") from exc
    if result.returncode != 0:
        said = (result.stderr or result.stdout).decode("utf-8", "replace").strip()
        raise GitError(f"git {' '.join(args)} failed: {said}")
    return result.stdout


def text(cwd: Path, *args: str, env: Mapping[str, str] | None = None) -> str:
    """`run` decoded; paths git prints that are not UTF-8 survive (surrogateescape)."""
    return run(cwd, *args, env=env).decode("utf-8", "surrogateescape")


def output(cwd: Path, *args: str, timeout: float | None = None) -> str | None:
    """What `git ARGS` prints in `cwd` without its last newline; None when git fails, is
    missing or hangs. Only the newline goes: `status --porcelain` starts with a space that
    means "changed, not staged"."""
    try:
        result = _call(cwd, args, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if result.returncode != 0:
        return None
    return result.stdout.decode("utf-8", "surrogateescape").removesuffix("\n")


def succeeds(cwd: Path, *args: str) -> bool:
    """Whether `git ARGS` exits 0 in `cwd` (False when git cannot run)."""
    try:
        return _call(cwd, args).returncode == 0
    except OSError:
        return False


def rev_exists(cwd: Path, rev: str) -> bool:
    return succeeds(cwd, "rev-parse", "--verify", "--quiet", rev)


def has_commits(cwd: Path) -> bool:
    """False in a repository made by `git init` and not committed to yet."""
    return rev_exists(cwd, "HEAD")


def tracked(cwd: Path, relpath: str) -> bool:
    return succeeds(cwd, "ls-files", "--error-unmatch", "--", relpath)


def ignored(cwd: Path, relpath: str) -> bool:
    return succeeds(cwd, "check-ignore", "-q", "--", relpath)


def move(cwd: Path, source: str, target: str) -> bool:
    """Move a file within the work tree: `git mv` when git tracks it (its edits staged with
    it), a plain rename when not. Returns whether git tracked it; GitError when git refuses."""
    (cwd / target).parent.mkdir(parents=True, exist_ok=True)
    if tracked(cwd, source):
        run(cwd, "add", "--", source)
        run(cwd, "mv", "--", source, target)
        return True
    (cwd / source).rename(cwd / target)
    return False


def name_status(text: str) -> list[tuple[str, str, str]]:
    """The files of one commit in `git log --name-status -z` (`text`: what follows the
    commit's own line): (status letter, path, the new path of a rename or copy, else "")."""
    names = [n.strip("\n") for n in text.split("\0")]
    out: list[tuple[str, str, str]] = []
    i = 0
    while i < len(names):
        status = names[i]
        if not status:
            i += 1
        elif status[0] in "RC" and i + 2 < len(names):
            out.append((status[0], names[i + 1], names[i + 2]))
            i += 3
        else:
            if i + 1 < len(names):
                out.append((status[0], names[i + 1], ""))
            i += 2
    return out


def show(cwd: Path, rev: str, relpath: str) -> str | None:
    """A file as committed at `rev`, or None when it (or the revision) does not exist."""
    try:
        result = _call(cwd, ("show", f"{rev}:{relpath}"))
    except OSError:
        return None
    if result.returncode != 0:
        return None
    return result.stdout.decode("utf-8", "replace")
