"""Whether a memory repository is this user's to trust, as git's `safe.directory` decides
for a git repository.

On a shared machine another local user can plant a `memkit.yaml` (and a `.memkit/` with an
index, an engine socket) in a folder they own or can write to: a world-writable `/tmp/x`, a
checkout of theirs. Used, its atoms would be served to the agent and saves written into it.
So a repository is used only when the folder, its `memkit.yaml` and its `.memkit/` belong to
this user, its memory folders (`shared/`, `roles/`, ...) to this user or root and writable by
nobody else (no sticky bit helps: others could add atoms), and every folder above it belongs
to this user or root and is writable by nobody else, unless the sticky bit keeps others from
renaming what is in it (`/tmp`). A folder deeper in the memory that fails the same test is
left out of the index (`memkit.repo.list_atom_files`). The one way
around it is git's own: `git config --global --add safe.directory PATH` (or `*`).

Standard library only, os.path only: the Claude Code hook's fast path imports it.
"""

from __future__ import annotations

import os

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"grp", "pwd", "subprocess"}


CONFIG = "memkit.yaml"
# The folders atoms are served from (memkit.atom.SCOPE_DIRS; not imported: this module stays
# standard library only).
MEMORY_FOLDERS = ("shared", "roles", "personal", "episodic", "archive")
STICKY = 0o1000
_DIR_TYPE = 0o040000
_TYPE = 0o170000


def _own_private_group(gid: int) -> bool:
    """Group write is harmless in a group of one: the user-private groups of many Linux
    distributions, where every folder is 0775."""
    if gid != os.getegid():
        return False
    import grp
    import pwd

    try:
        members = grp.getgrgid(gid).gr_mem
        name = pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        return False
    return all(m == name for m in members)


def others_can_write(st: os.stat_result) -> bool:
    if st.st_mode & 0o002:
        return True
    return bool(st.st_mode & 0o020) and not _own_private_group(st.st_gid)


def safe(st: os.stat_result) -> bool:
    """Owned by this user and writable by nobody else."""
    return st.st_uid == os.geteuid() and not others_can_write(st)


def _whose(uid: int) -> str:
    try:
        import pwd

        return f"`{pwd.getpwuid(uid).pw_name}` (uid {uid})"
    except (KeyError, ImportError):
        return f"uid {uid}"


def _problem(folder: str) -> str | None:
    """What makes `folder` (a repository, absolute and resolved) untrustworthy, or None."""
    me = os.geteuid()
    st = os.stat(folder)  # noqa: PTH116
    if st.st_uid != me:
        return f"it is owned by {_whose(st.st_uid)}, not by you ({_whose(me)})"
    if others_can_write(st):
        return "others can write to it"
    try:
        config = os.lstat(os.path.join(folder, CONFIG))  # noqa: PTH118
    except FileNotFoundError:
        config = None
    if config is not None and not safe(config):
        return f"its {CONFIG} is not yours alone (owner {_whose(config.st_uid)})"
    try:
        local = os.lstat(os.path.join(folder, ".memkit"))  # noqa: PTH118
    except FileNotFoundError:
        local = None
    if local is not None and (local.st_mode & _TYPE != _DIR_TYPE or local.st_uid != me):
        if local.st_mode & _TYPE != _DIR_TYPE:
            return (
                "its .memkit is not a folder (a commit that tracks a file of that name put "
                "it there, in place of this clone's state: `git rm -r --cached .memkit` on "
                "the branch, then `mv .memkit .memkit.from-git` here)"
            )
        return f"its .memkit/ is not a folder of yours (owner {_whose(local.st_uid)})"
    for name in MEMORY_FOLDERS:
        why = folder_problem(os.path.join(folder, name))  # noqa: PTH118
        if why:
            return f"its {name}/ {why}"
    parent = os.path.dirname(folder)  # noqa: PTH120
    while True:
        above = os.stat(parent)  # noqa: PTH116
        if above.st_uid not in (me, 0):
            return f"it lies in {parent}, which belongs to {_whose(above.st_uid)}"
        if others_can_write(above) and not above.st_mode & STICKY:
            return f"it lies in {parent}, which others can write to (and no sticky bit)"
        up = os.path.dirname(parent)  # noqa: PTH120
        if up == parent:
            return None
        parent = up


def folder_problem(path: str) -> str | None:
    """Why atoms in the folder `path` could be another user's ("" or None: they cannot): it
    belongs to another user, or others can write to it. The sticky bit does not help here:
    it keeps others from renaming what is there, not from adding atoms."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if st.st_mode & _TYPE != _DIR_TYPE:
        return None  # a link or a file in its place: not read as a folder of atoms
    if st.st_uid not in (os.geteuid(), 0):
        return f"belongs to {_whose(st.st_uid)}: atoms in it could be theirs"
    if others_can_write(st):
        return f"can be written by others (mode {st.st_mode & 0o7777:o}): `chmod go-w {path}`"
    return None


def _excepted(folder: str) -> bool:
    """Whether git's `safe.directory` (system and global settings only, as git reads it)
    lists `folder`: the user has said they trust it."""
    import subprocess

    try:
        listed = subprocess.run(
            ["git", "config", "--get-all", "safe.directory"],
            cwd="/",
            capture_output=True,
            text=True,
            check=False,
            timeout=10,
            env={**os.environ, "GIT_CONFIG_PARAMETERS": "", "GIT_DIR": "/nonexistent"},
        ).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return False
    trusted = False
    for value in (v.strip() for v in listed):
        if not value:
            trusted = False  # an empty value resets the list, as in git
        elif value in ("*", folder) or value.rstrip("/") == folder:
            trusted = True
        elif value.endswith("/*"):
            trusted = trusted or (folder + "/").startswith(value[:-1])
    return trusted


def refusal(folder: str) -> str | None:
    """Why the memory repository at `folder` must not be used (a sentence that names the
    repository, the reason and the way out), or None when it may be."""
    real = os.path.realpath(folder)
    try:
        problem = _problem(real)
    except OSError as exc:
        problem = f"it cannot be checked ({exc.strerror or exc})"
    if problem is None or _excepted(real):
        return None
    return (
        f"refusing the memory repository {real}: {problem}; another local user could "
        "plant the memory it serves. Move it into a folder of your own, or, if you trust "
        f"it, `git config --global --add safe.directory {real}`"
    )


def trusted(folder: str) -> bool:
    return refusal(folder) is None
