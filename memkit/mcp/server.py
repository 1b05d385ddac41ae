"""`memkit mcp`: the stdio MCP server, ready before Claude Code's first request.

Claude Code starts its MCP servers with the session and, in `claude -p`, sends the first
request about two seconds later with only the tools of servers that have answered by then.
Importing the official SDK alone takes 0.8 s on an idle 2-core machine and 3 s on a busy one,
so this server speaks the protocol subset a tools-only server needs itself (docs/mcp.md):
`initialize`, `ping`, `tools/list`, `tools/call`, notifications. The first two answers come
from plain data (`memkit.mcp.tools`); the index, the model and git load once `initialize` is
answered, and they and every tool call run on the main thread, one at a time (the
index readers and the usage log it keeps open belong to it), while a reading thread reads the
next message and answers what needs no memory (`memkit.mcp.lane`).

Bad input is a tool error the model can read; a bad message is a JSON-RPC error
(`memkit.mcp.rpc`); any other failure is logged to `.memkit/logs/hooks.log` and answered with
one line, never a crashed server; a call that takes too long is answered with an error at its
deadline, and its work is stopped there. The writing tools (`save`, `accept`) take at most
WRITES calls at once, refilled at WRITES_PER_MINUTE, and a waiting search goes before waiting
writes. Only stdin and stdout: no network port is opened.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import math
import os
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from memkit import __version__
from memkit.errors import MemkitError
from memkit.mcp.lane import Lane, Rate
from memkit.mcp.rpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    Channel,
    Closed,
    Request,
    RpcError,
    lines,
    parse,
)
from memkit.mcp.tools import BY_NAME, INSTRUCTIONS, TOOLS, BadArguments

if TYPE_CHECKING:
    from memkit.mcp.memory import Memory

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {
    "memkit.mcp.answers",
    "memkit.mcp.lookup",
    "memkit.mcp.memory",
    "memkit.recall.hooklog",
    "memkit.recall.masking",
}


log = logging.getLogger(__name__)
TOOL_DEADLINE = 60.0  # seconds for one call; the first one may build the index
WRITE_DEADLINE = 20.0  # seconds for a save or an accept: the checks of one atom
WRITING = ("save", "accept")
WRITES, WRITES_PER_MINUTE = 10, 10.0  # a burst of saves, and how fast it refills
# Newest first; a client asking for another gets the newest, as the protocol says.
PROTOCOLS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
FAILED = (
    "memkit failed on this call (a bug, not your input); the details are in "
    ".memkit/logs/hooks.log of the memory repository"
)


def tool_answer(text: str, *, error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": error}


class Server:
    def __init__(self, roots: Sequence[Path], memory: Memory | None = None) -> None:
        self.roots = [Path(r) for r in roots]
        self._memory = memory
        self._lane = Lane()
        self._writes = Rate(WRITES, WRITES_PER_MINUTE)
        self._lock = threading.Lock()
        self._open: dict[object, Any] = {}  # call token -> request id, until answered
        self._tokens: dict[Any, object] = {}  # request id -> its call's token

    def run(self, stdin: IO[bytes], stdout: IO[bytes]) -> int:
        channel = Channel(stdout)

        def read() -> None:
            with contextlib.suppress(Closed):
                for line in lines(stdin):
                    self._take(channel, line)

        # What was asked before the client left is still answered (when it can be).
        self._lane.serve(read)
        return 0

    def _take(self, channel: Channel, line: Any) -> None:
        request, error, rid = parse(line)
        if error is not None:
            channel.error(rid, error)
            return
        if request is None:
            return
        try:
            self._dispatch(channel, request)
        except RpcError as exc:
            if not request.notification:
                channel.error(request.id, exc)
        except Closed:
            raise
        except Exception:
            self._log_failure(f"mcp {request.method[:40]}")
            if not request.notification:
                channel.error(request.id, RpcError(INTERNAL_ERROR, FAILED))

    def _dispatch(self, channel: Channel, request: Request) -> None:
        method, params, rid = request.method, request.params, request.id
        if rid is None:  # a notification
            if method == "notifications/cancelled":
                self._cancel(params.get("requestId"))
            return  # the others (initialized, ...) need nothing
        if method == "initialize":
            asked = params.get("protocolVersion")
            channel.result(
                rid,
                {
                    "protocolVersion": asked if asked in PROTOCOLS else PROTOCOLS[0],
                    "capabilities": {"tools": {"listChanged": False}},
                    "serverInfo": {"name": "memkit", "version": __version__},
                    "instructions": INSTRUCTIONS,
                },
            )
            # Answered: now load what the tools need, while the client lists them.
            self._lane.submit(self._loaded_memory, seconds=TOOL_DEADLINE)
        elif method == "ping":
            channel.result(rid, {})
        elif method == "tools/list":
            channel.result(rid, {"tools": [tool.listing() for tool in TOOLS]})
        elif method == "tools/call":
            self._call(channel, rid, params)
        else:
            raise RpcError(METHOD_NOT_FOUND, f"method not found: {method[:80]}")

    def _call(self, channel: Channel, rid: int | str, params: dict[str, Any]) -> None:
        name, given = params.get("name"), params.get("arguments")
        if not isinstance(name, str):
            raise RpcError(INVALID_PARAMS, "invalid params: tools/call needs the tool's name")
        if given is not None and not isinstance(given, dict):
            raise RpcError(INVALID_PARAMS, "invalid params: arguments must be an object")
        tool = BY_NAME.get(name)
        if tool is None:
            names = ", ".join(BY_NAME)
            text = f"unknown tool `{name[:80]}`; the tools are {names}"
            channel.result(rid, tool_answer(text, error=True))
            return
        try:
            arguments = tool.arguments(given or {})
        except BadArguments as exc:
            channel.result(rid, tool_answer(str(exc), error=True))
            return
        writing = name in WRITING
        wait = self._writes.take() if writing else 0.0
        if wait:
            text = (
                f"too many {name} calls: at most {WRITES} at once and {WRITES_PER_MINUTE:g} a "
                f"minute; nothing was written: call again in {math.ceil(wait)} s"
            )
            channel.result(rid, tool_answer(text, error=True))
            return
        token = object()
        with self._lock:
            self._open[token] = rid
            self._tokens[rid] = token
        seconds = deadline(WRITE_DEADLINE if writing else TOOL_DEADLINE)
        future = self._lane.submit(
            lambda: self._answer(name, arguments), seconds=seconds, priority=int(writing)
        )
        timer = threading.Timer(seconds, self._late, (channel, token, seconds))
        timer.daemon = True
        timer.start()

        def done(f: concurrent.futures.Future[dict[str, Any]]) -> None:
            timer.cancel()
            if f.cancelled():
                return
            if f.exception() is not None:  # stopped at its deadline (memkit.budget)
                self._late(channel, token, seconds)
            else:
                self._reply(channel, token, f.result())

        future.add_done_callback(done)

    def _reply(self, channel: Channel, token: object, answer: dict[str, Any]) -> None:
        """Answer a call once: its result, its deadline or its cancellation comes first."""
        with self._lock:
            if token not in self._open:
                return
            rid = self._open.pop(token)
            self._tokens.pop(rid, None)
        with contextlib.suppress(Closed):  # the client is gone; the reading thread sees it too
            channel.result(rid, answer)

    def _late(self, channel: Channel, token: object, seconds: float) -> None:
        text = f"memkit did not answer within {seconds:.0f} s; try again shortly"
        self._reply(channel, token, tool_answer(text, error=True))

    def _cancel(self, rid: Any) -> None:
        with self._lock:
            token = self._tokens.pop(rid, None) if isinstance(rid, (int, str)) else None
            self._open.pop(token, None)

    def _loaded_memory(self) -> Memory:
        """The memory the tools read, made on the worker thread on first use."""
        if self._memory is None:
            from memkit.mcp.memory import Memory

            self._memory = Memory(self.roots)
        return self._memory

    def _answer(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """One tool call, on the worker thread."""
        from memkit.mcp.answers import ANSWERS
        from memkit.mcp.lookup import BadInput
        from memkit.recall.masking import mask

        try:
            return tool_answer(ANSWERS[name](self._loaded_memory(), arguments))
        except (BadInput, MemkitError) as exc:
            return tool_answer(mask(str(exc)), error=True)
        except Exception:
            self._log_failure(f"mcp {name}")
            return tool_answer(FAILED, error=True)

    def _log_failure(self, what: str) -> None:
        from memkit.recall.hooklog import log_error

        log_error(str(self.roots[0]), what)


def deadline(default: float) -> float:
    """A tool call's deadline: `default`, or less when MEMKIT_MCP_DEADLINE says so (seconds;
    loading the memory keeps TOOL_DEADLINE)."""
    try:
        given = float(os.environ.get("MEMKIT_MCP_DEADLINE") or default)
    except ValueError:
        return default
    return min(default, given) if given > 0 else default


def serve(roots: Sequence[Path]) -> int:
    """Serve `roots` over stdin/stdout until the client closes them."""
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print anywhere must not corrupt the protocol
    code = Server(roots).run(sys.stdin.buffer, out)
    # The client has left: the calls it made finish (a save is written whole, or not at all,
    # either way), but a hung one does not keep the process alive past its deadline.
    guard = threading.Timer(deadline(TOOL_DEADLINE), os._exit, (0,))
    guard.daemon = True
    guard.start()
    return code
