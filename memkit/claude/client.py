"""The hook's side of the warm engine: standard library only, imported on every hook."""

from __future__ import annotations

import os
import socket

SOCKET = "engine.sock"


def socket_path(root: str | os.PathLike[str]) -> str:
    # os.path, not pathlib: this runs on every hook, and pathlib alone costs ~9 ms to import.
    return os.path.join(root, ".memkit", SOCKET)  # noqa: PTH118


def ask(
    root: str | os.PathLike[str], event: str, payload: str, repos: list[str], timeout: float
) -> str:
    """Send one hook to the engine; OSError when no engine answers."""
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(timeout)
    try:
        client.connect(socket_path(root))
        # Two header lines (event; repositories, tab-separated), then the hook's JSON as is:
        # no json module on this path.
        head = (event + "\n" + "\t".join(repos) + "\n").encode("utf-8")
        client.sendall(head + payload.encode("utf-8"))
        client.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := client.recv(65536):
            chunks.append(chunk)
    finally:
        client.close()
    return b"".join(chunks).decode("utf-8")
