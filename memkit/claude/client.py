"""The hook's side of the warm engine: standard library only, imported on every hook."""

from __future__ import annotations

import _socket  # the C module: `socket` pulls in enum and selectors, ~9 ms per hook
import os

TYPE_CHECKING = False  # typing itself costs ~3 ms to import on every hook
if TYPE_CHECKING:
    from collections.abc import Callable

SOCKET = "engine.sock"


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
    """Send one hook to the engine; OSError when no engine answers."""
    client = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    client.settimeout(timeout)
    try:
        with_socket_path(socket_path(root), client.connect)
        # Two header lines (event; repositories, tab-separated), then the hook's JSON as is:
        # no json module on this path.
        head = (event + "\n" + "\t".join(repos) + "\n").encode("utf-8")
        client.sendall(head + payload.encode("utf-8"))
        client.shutdown(_socket.SHUT_WR)
        chunks = []
        while chunk := client.recv(65536):
            chunks.append(chunk)
    finally:
        client.close()
    return b"".join(chunks).decode("utf-8")
