"""The hook's side of the warm engine: standard library only, imported on every hook."""

from __future__ import annotations

import json
import socket
from pathlib import Path

SOCKET = "engine.sock"


def socket_path(root: Path) -> Path:
    return root / ".memkit" / SOCKET


def ask(root: Path, event: str, payload: str, repos: list[str], timeout: float) -> str:
    """Send one hook to the engine; OSError when no engine answers."""
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(timeout)
    try:
        client.connect(str(socket_path(root)))
        request = {"event": event, "repos": repos, "payload": payload}
        client.sendall(json.dumps(request).encode("utf-8") + b"\n")
        client.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := client.recv(65536):
            chunks.append(chunk)
    finally:
        client.close()
    return b"".join(chunks).decode("utf-8")
