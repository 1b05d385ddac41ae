"""Which memory repository, and which engine socket, a hook may trust on a shared machine.

A hook walks up from the session's folder to the nearest `memkit.yaml`. In a folder that
another local user controls (a world-writable `/tmp/x`, a checkout of theirs), that file and
its `.memkit/engine.sock` are theirs: the hook would send them the prompt, read their atoms
and print their answer into the session. So a repository, found by walking up or named
explicitly (`--repo`, written by `memkit install claude`, used as named, without a walk), is
used only when `memkit.ownership` trusts it (this user's, in folders nobody else can write
to); and the engine socket only when this user owns it and its `.memkit/` is theirs alone.

Standard library only, os.path only: the hook's fast path imports it.
"""

from __future__ import annotations

import os

from memkit.ownership import CONFIG, refusal, safe

_SOCKET_TYPE = 0o140000  # stat.S_IFSOCK, without importing stat
_DIR_TYPE = 0o040000


def named_repo(path: str) -> str | None:
    """A repository named on the command line: exactly that folder, never one above it."""
    folder = os.path.abspath(os.path.expanduser(path))  # noqa: PTH100, PTH111
    return folder if os.path.isfile(os.path.join(folder, CONFIG)) else None  # noqa: PTH113, PTH118


def locate(named: list[str], start: str) -> tuple[str | None, str | None]:
    """(the repository to serve, None) or (None, why the one found is refused): the first
    named one that exists; with none named, the nearest above `start`. Either is used only
    when this user may trust it (`memkit.ownership`); (None, None): there is none."""
    if named:
        for path in named:
            found = named_repo(path)
            if found is not None:
                why = refusal(found)
                return (None, why) if why else (found, None)
        return None, None
    folder = os.path.abspath(start)  # noqa: PTH100
    while True:
        if os.path.isfile(os.path.join(folder, CONFIG)):  # noqa: PTH113, PTH118
            why = refusal(folder)
            return (None, why) if why else (folder, None)
        parent = os.path.dirname(folder)  # noqa: PTH120
        if parent == folder:
            return None, None
        folder = parent


def trusted_root(named: list[str], start: str) -> str | None:
    """The repository to serve (see `locate`), None when there is none this user may trust."""
    return locate(named, start)[0]


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
