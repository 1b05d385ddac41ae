"""Writing a file so that no reader ever sees half of it: a temp file in the same folder, then
an atomic rename. One helper for atoms, settings, logs, the index and caches.

Standard library only: the Claude Code hook path imports it.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import IO

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"tempfile"}


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(
    path: Path,
    data: str | bytes | Callable[[IO[bytes]], object],
    *,
    durable: bool = True,
    mode: int | None = None,
) -> None:
    """Replace `path` with `data` (text is written as UTF-8, newlines untouched; a callable
    is handed the open binary file). `durable` syncs the data to disk before the rename: for
    what the user wrote; derived files that can be rebuilt skip it. The file keeps the mode of
    the one it replaces, a new one gets `mode` or what the umask allows, as `open` would."""
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        final_mode = path.stat().st_mode & 0o777
    except OSError:
        final_mode = mode if mode is not None else 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            if callable(data):
                data(fh)
            else:
                fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.chmod(tmp, final_mode)  # noqa: PTH101 - a str path from mkstemp
        os.replace(tmp, path)  # noqa: PTH105
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def private_dirs(folder: Path) -> Path:
    """`mkdir -p folder`, every folder it makes 0700; returns `folder`."""
    missing = []
    here = folder
    while not here.exists() and here.parent != here:
        missing.append(here)
        here = here.parent
    for path in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile by another process
            path.mkdir(mode=0o700)
    return folder


def memkit_dir(root: Path) -> Path:
    """`<root>/.memkit/`, this user's alone (0700): it holds the usage log, the hook logs and
    the engine socket. One of ours made wider by an older memkit is tightened."""
    folder = private_dirs(root / ".memkit")
    try:
        st = folder.stat()
        if st.st_uid == os.geteuid() and st.st_mode & 0o077:
            folder.chmod(0o700)
    except OSError:
        pass  # a read-only or foreign .memkit: readers decide what to do with it
    return folder


_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFDIR: "a directory",
}


class NotRegular(OSError):
    """A path that is not a regular file: reading it could wait forever (a FIFO) or do
    something (a device)."""


def read_regular(path: Path, limit: int | None = None) -> bytes:
    """The bytes of the regular file at `path` (a symlink is followed), at most `limit` + 1
    of them. Anything else raises NotRegular without being opened; the open itself cannot
    block, should the file be swapped for a FIFO in between."""
    kind = _KINDS.get(stat.S_IFMT(path.stat().st_mode))
    if kind is not None:
        raise NotRegular(f"not a regular file but {kind}")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as fh:
        kind = _KINDS.get(stat.S_IFMT(os.fstat(fd).st_mode))
        if kind is not None:
            raise NotRegular(f"not a regular file but {kind}")
        return fh.read() if limit is None else fh.read(limit + 1)
