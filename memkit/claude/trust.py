"""Which memory repository, and which engine socket, a hook may trust on a shared machine.

A hook walks up from the session's folder to the nearest `memkit.yaml`. In a folder that
another local user controls (a world-writable `/tmp/x`, a checkout of theirs), that file and
its `.memkit/engine.sock` are theirs: the hook would send them the prompt, read their atoms
and print their answer into the session. So a repository found by walking up is used only
when it and its `memkit.yaml` belong to this user and nobody else can write to them; one
named explicitly (`--repo`, written by `memkit install claude`) is used as named, without a
walk; and the engine socket is used only when this user owns it and its `.memkit/`.

Standard library only, os.path only: the hook's fast path imports it.
"""

from __future__ import annotations

import os

CONFIG = "memkit.yaml"
_SOCKET_TYPE = 0o140000  # stat.S_IFSOCK, without importing stat
_DIR_TYPE = 0o040000


def _own_private_group(gid: int) -> bool:
    """Group write is harmless in a group of one: the user-private groups of many Linux
    distributions, where every folder is 0775."""
    if gid != os.getegid():
        return False
    import grp  # noqa: PLC0415  (only for group-writable folders)
    import pwd  # noqa: PLC0415

    try:
        members = grp.getgrgid(gid).gr_mem
        name = pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        return False
    return all(m == name for m in members)


def safe(st: os.stat_result) -> bool:
    """Owned by this user and writable by nobody else."""
    if st.st_uid != os.geteuid() or st.st_mode & 0o002:
        return False
    return not st.st_mode & 0o020 or _own_private_group(st.st_gid)


def trusted_repo(folder: str) -> bool:
    try:
        return safe(os.stat(folder)) and safe(os.lstat(os.path.join(folder, CONFIG)))  # noqa: PTH116, PTH118
    except OSError:
        return False


def named_repo(path: str) -> str | None:
    """A repository named on the command line: exactly that folder, never one above it."""
    folder = os.path.abspath(os.path.expanduser(path))  # noqa: PTH100, PTH111
    return folder if os.path.isfile(os.path.join(folder, CONFIG)) else None  # noqa: PTH113, PTH118


def find_root(named: list[str], start: str) -> str | None:
    """The repository to serve: the first named one that exists; with none named, the nearest
    above `start`, when this user may trust it (None otherwise: no memory, no engine)."""
    if named:
        for path in named:
            found = named_repo(path)
            if found is not None:
                return found
        return None
    folder = os.path.abspath(start)  # noqa: PTH100
    while True:
        if os.path.isfile(os.path.join(folder, CONFIG)):  # noqa: PTH113, PTH118
            return folder if trusted_repo(folder) else None
        parent = os.path.dirname(folder)  # noqa: PTH120
        if parent == folder:
            return None
        folder = parent


def private_folder(root: str) -> bool:
    """Whether `<root>/.memkit/` is this user's alone (absent counts: it would be made so)."""
    try:
        st = os.lstat(os.path.join(root, ".memkit"))  # noqa: PTH118
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return st.st_mode & 0o170000 == _DIR_TYPE and safe(st)


def engine_socket(root: str, name: str) -> str | None:
    """The engine socket of `root` if this user may talk to it, else None."""
    path = os.path.join(root, ".memkit", name)  # noqa: PTH118
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if st.st_mode & 0o170000 != _SOCKET_TYPE or st.st_uid != os.geteuid():
        return None
    return path if private_folder(root) else None
