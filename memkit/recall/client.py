"""The hook's side of the warm engine: standard library only, imported on every hook."""

from __future__ import annotations

import _json  # the C encoder: the json package (and re) costs a hook ~7 ms
import _socket  # the C module: `socket` pulls in enum and selectors, ~9 ms per hook
import os

from memkit.recall.trust import engine_socket

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"fcntl", "time"}


TYPE_CHECKING = False  # typing itself costs ~3 ms to import on every hook
if TYPE_CHECKING:
    from collections.abc import Callable

SOCKET = "engine.sock"
# What decides who the person asking is (`git var GIT_AUTHOR_IDENT`, and so scopes and whose
# episodic summaries): sent with every request, because the engine serves every session of
# this OS user, and two git identities on one account must not see each other's memory.
IDENTITY_VARS = (
    *("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "EMAIL", "HOME", "XDG_CONFIG_HOME"),
    *("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_PARAMETERS"),
)
ASKER = "memkit_asker"  # the payload's key for them (a key no Claude Code event has)


def identity_key() -> tuple[str | None, ...]:
    """This process's identity variables as they stand: a cache key for what depends on them."""
    return tuple(os.environ.get(name) for name in IDENTITY_VARS)


def with_asker(payload: str) -> str:
    """The hook's JSON with the identity variables added as its last key (NAME=VALUE pairs,
    NUL-separated). Inside the JSON, not beside it: an engine of an older memkit, still running
    after an upgrade, reads the payload as before and ignores the key."""
    body = payload.rstrip()
    if not body.endswith("}"):
        return payload  # not an object: sent as it is (the engine's parse says the rest)
    pairs = "\0".join(
        f"{name}={value}" for name in IDENTITY_VARS if (value := os.environ.get(name)) is not None
    )
    head = body[:-1].rstrip()
    comma = "" if head.endswith("{") else ", "
    key, value = _json.encode_basestring_ascii(ASKER), _json.encode_basestring_ascii(pairs)
    return f"{head}{comma}{key}: {value}}}"


def socket_path(root: str | os.PathLike[str]) -> str:
    # os.path, not pathlib: this runs on every hook, and pathlib alone costs ~9 ms to import.
    return os.path.join(root, ".memkit", SOCKET)  # noqa: PTH118


def with_socket_path(path: str, call: Callable[[str], None]) -> None:
    """bind() or connect() to `path`; a path longer than AF_UNIX allows (~107 bytes: a deep
    checkout) is reached from its folder by its short name."""
    if len(path.encode()) < 100:
        call(path)
        return
    here = os.getcwd()  # noqa: PTH109
    os.chdir(os.path.dirname(path))  # noqa: PTH120
    try:
        call(os.path.basename(path))  # noqa: PTH119
    finally:
        os.chdir(here)


def ask(
    root: str | os.PathLike[str], event: str, payload: str, repos: list[str], timeout: float
) -> str:
    """Send one hook to the engine; OSError when no engine this user may trust answers."""

    path = engine_socket(os.fspath(root), SOCKET)
    if path is None:
        raise FileNotFoundError(socket_path(root))  # none, or not this user's: never talk to it
    client = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    client.settimeout(timeout)
    try:
        with_socket_path(path, client.connect)
        # Two header lines (event; repositories, tab-separated), then the hook's JSON with who
        # asks added: no json module on this path.
        head = (event + "\n" + "\t".join(repos) + "\n").encode("utf-8")
        client.sendall(head + with_asker(payload).encode("utf-8"))
        client.shutdown(_socket.SHUT_WR)
        chunks = []
        while chunk := client.recv(65536):
            chunks.append(chunk)
    finally:
        client.close()
    return b"".join(chunks).decode("utf-8")


HUNG = "engine.hung"  # written by a hook the engine let time out
HUNG_SECONDS = 30.0


def engine_hung(root: str) -> str:
    """Why the engine of `root` cannot answer now ("" when it can, as far as is known): it let
    a hook time out in the last HUNG_SECONDS ("hung"), or it is stopped (SIGSTOP, a debugger:
    "stopped", and marked so). Then every hook answers by itself at once, instead of each
    waiting out its own timeout first."""
    folder = os.path.join(root, ".memkit")  # noqa: PTH118
    try:
        marked = os.stat(os.path.join(folder, HUNG)).st_mtime  # noqa: PTH116, PTH118
    except OSError:
        marked = 0.0
    if marked:
        import time

        if time.time() - marked < HUNG_SECONDS:
            return "hung"
    try:
        with open(os.path.join(folder, "engine.pid"), encoding="utf-8") as fh:  # noqa: PTH118, PTH123
            pid = fh.read().strip()
        with open(f"/proc/{pid}/stat", encoding="utf-8") as fh:  # noqa: PTH123  (Linux)
            state = fh.read().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return ""
    if state in ("T", "t"):
        # Hooks run thirty at a time: only the one that marks it says so.
        return "stopped" if mark_hung(root) else "hung"
    return ""


def mark_hung(root: str) -> bool:
    """Mark the engine hung; False when another hook marked it within HUNG_SECONDS."""
    import fcntl
    import time

    try:
        fd = os.open(os.path.join(root, ".memkit", HUNG), os.O_RDWR | os.O_CREAT, 0o600)  # noqa: PTH118
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            then = float(os.read(fd, 64) or b"0")
        except ValueError:
            then = 0.0
        now = time.time()
        if now - then < HUNG_SECONDS:
            return False
        os.lseek(fd, 0, os.SEEK_SET)
        os.ftruncate(fd, 0)
        os.write(fd, f"{now:.3f}".encode())
        return True
    except OSError:
        return True
    finally:
        os.close(fd)
