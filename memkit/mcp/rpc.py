"""JSON-RPC 2.0 over stdio, one message per line, as MCP's stdio transport frames it.

Every line that is not a valid request gets an error answer the client can match (JSON-RPC's
own codes), never silence and never a dead server: invalid JSON or UTF-8, a lone surrogate
escape (`"\\ud800"`: valid JSON, not Unicode text, and unprintable back to the client), nesting
too deep for the parser, a message over MAX_MESSAGE bytes, a batch (MCP dropped them), a
request without a method. Standard library only.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
MAX_MESSAGE = 4 * 1024 * 1024  # bytes; a save's text is at most 20,000 characters


def initialize_request(client: str, rid: int = 1) -> dict[str, Any]:
    """The handshake a client opens with, as Claude Code 2.1.197 sends it (`memkit doctor`,
    the tests and the benchmark speak to the server this way)."""
    return {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": client, "version": "1"},
        },
    }


class Closed(Exception):
    """The client closed the server's stdout: nobody is left to answer."""


class RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Request:
    method: str
    id: int | str | None = None  # None: a notification, never answered
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def notification(self) -> bool:
        return self.id is None


class TooLarge:
    """A line longer than MAX_MESSAGE, read and thrown away."""


def lines(stream: IO[bytes]) -> Iterator[bytes | TooLarge]:
    """The messages on `stream`, until it closes; never more than MAX_MESSAGE bytes held."""
    while True:
        line = stream.readline(MAX_MESSAGE + 1)
        if not line:
            return
        if len(line) > MAX_MESSAGE and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):
                line = stream.readline(MAX_MESSAGE)
            yield TooLarge()
        elif line.strip():
            yield line


def _has_surrogate(value: Any) -> bool:
    """Whether any string in `value` (keys included) holds a lone surrogate. A loop, not
    recursion: a message nested deeper than Python's stack must still be answered."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _valid_id(value: Any) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, str) and not _has_surrogate(value)
    )


def parse(line: bytes | TooLarge) -> tuple[Request | None, RpcError | None, Any]:
    """(request, None, None) for a request or notification; (None, error, id) for a line to
    answer with an error (id None when it has none we can use); (None, None, None) for a
    message that needs no answer (a response: this server sends no requests)."""
    if isinstance(line, TooLarge):
        return None, RpcError(INVALID_REQUEST, f"message over {MAX_MESSAGE} bytes"), None
    try:
        message = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        return None, RpcError(PARSE_ERROR, "parse error: the message is not UTF-8"), None
    except RecursionError:
        return None, RpcError(PARSE_ERROR, "parse error: the JSON is nested too deeply"), None
    except ValueError as exc:
        return None, RpcError(PARSE_ERROR, f"parse error: not JSON ({exc})"), None
    if isinstance(message, list):
        batch = "invalid request: batches are not part of MCP; one message per line"
        return None, RpcError(INVALID_REQUEST, batch), None
    if not isinstance(message, dict):
        return None, RpcError(INVALID_REQUEST, "invalid request: not a JSON object"), None
    has_id = "id" in message
    rid = message.get("id")
    usable = rid if _valid_id(rid) else None
    if "method" not in message and ("result" in message or "error" in message):
        return None, None, None
    if _has_surrogate(message):
        return (
            None,
            RpcError(
                INVALID_REQUEST,
                "invalid request: a string holds a lone surrogate escape (such as \\ud800), "
                "which is not Unicode text",
            ),
            usable,
        )
    if message.get("jsonrpc") != "2.0":
        return None, RpcError(INVALID_REQUEST, 'invalid request: "jsonrpc" must be "2.0"'), usable
    method = message.get("method")
    if not isinstance(method, str) or not method:
        return None, RpcError(INVALID_REQUEST, "invalid request: no method"), usable
    if has_id and not _valid_id(rid):
        bad_id = "invalid request: id must be a string or an integer"
        return None, RpcError(INVALID_REQUEST, bad_id), None
    params = message.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        return None, RpcError(INVALID_PARAMS, "invalid params: must be an object"), usable
    return Request(method, rid if has_id else None, params), None, None


class Channel:
    """The writing end, shared by the reading thread and the worker: one line per message,
    never two interleaved."""

    def __init__(self, out: IO[bytes]) -> None:
        self._out = out
        self._lock = threading.Lock()

    def send(self, message: dict[str, Any]) -> None:
        try:
            data = json.dumps(message, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:  # text with a lone surrogate: escaped, still valid JSON
            data = json.dumps(message).encode("ascii")
        with self._lock:
            try:
                self._out.write(data + b"\n")
                self._out.flush()
            except (OSError, ValueError) as exc:  # a broken pipe, a closed file
                raise Closed from exc

    def result(self, rid: int | str, result: dict[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "id": rid, "result": result})

    def error(self, rid: Any, error: RpcError) -> None:
        body = {"code": error.code, "message": error.message}
        self.send({"jsonrpc": "2.0", "id": rid, "error": body})
