"""One process at a time in a Milvus Lite file, and how a command asks for it.

Milvus Lite holds an advisory lock on `<file>/LOCK` for as long as a process has the file
open, and a second process is refused at once. The warm engine keeps the file open between
prompts (opening it costs a second or more); `memkit org publish` and `memkit org search`
need it too. So a command that finds it held leaves a release mark beside it (RELEASE); the
engine's worker sees the mark within a second, closes the file and does not open it again
while the mark stands; the command removes the mark when it is done. A mark older than
STALE_SECONDS (a command that was killed) is ignored. Standard library only.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

from memkit.errors import MemkitError
from memkit.files import private_dirs

LOCK = "LOCK"  # Milvus Lite's own lock file in its data folder
RELEASE = "memkit.release"
STALE_SECONDS = 900.0
WAIT_SECONDS = 30.0


def release_mark(path: Path) -> Path:
    return path.parent / f".{path.name}.{RELEASE}"


def held(path: Path) -> bool:
    """Whether another process has the Lite file open now."""
    try:
        fd = os.open(path / LOCK, os.O_RDWR)
    except FileNotFoundError:
        return False
    except OSError:
        return True  # not ours to open: as good as held
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def release_asked(path: Path) -> bool:
    """Whether a command asked the holder of the Lite file to let it go (a fresh mark)."""
    try:
        return time.time() - release_mark(path).stat().st_mtime < STALE_SECONDS
    except OSError:
        return False


def prepare(path: Path) -> None:
    """The folder a new Lite file goes in, made private: it holds role-scoped atoms."""
    private_dirs(path.parent)


@contextlib.contextmanager
def exclusive(path: Path, wait: float = WAIT_SECONDS) -> Iterator[None]:
    """The Lite file free for this process: when another holds it, ask it to let go and wait
    up to `wait` seconds; MemkitError saying so when it does not."""
    prepare(path)
    mark = release_mark(path)
    made = False
    try:
        if held(path):
            mark.touch(mode=0o600)
            made = True
            deadline = time.monotonic() + wait
            while held(path):
                if time.monotonic() >= deadline:
                    raise MemkitError(
                        f"{path} is open in another process (Milvus Lite serves one process "
                        "at a time): stop it (`memkit serve --stop` for a warm engine) or use "
                        "a Milvus server (`--uri http://HOST:PORT`)"
                    )
                time.sleep(0.1)
        yield
    finally:
        if made:
            mark.unlink(missing_ok=True)
