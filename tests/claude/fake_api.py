"""A fake Anthropic Messages API on 127.0.0.1 for driving the real Claude Code CLI offline.

It records every request body, answers prompts with a short text, and answers a prompt that
contains `READ-FILE <path>` with a `tool_use` block for Read, so that the CLI runs the tool
and its Pre/PostToolUse hooks. A test can also script tool calls (`FakeAPI.script`, e.g. MCP
tools): the n-th request that already holds n tool results is answered with the n-th call.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.helpers import serving


def _sse(events: list[tuple[str, dict[str, Any]]]) -> bytes:
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


def _message(blocks: list[tuple[dict[str, Any], dict[str, Any] | None]], stop: str) -> bytes:
    events: list[tuple[str, dict[str, Any]]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_fake",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-fake",
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 10, "output_tokens": 1},
                },
            },
        )
    ]
    for i, (start, delta) in enumerate(blocks):
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": i, "content_block": start},
            )
        )
        if delta is not None:
            events.append(
                ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta})
            )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return _sse(events)


def text_reply(text: str) -> bytes:
    return _message(
        [({"type": "text", "text": ""}, {"type": "text_delta", "text": text})], "end_turn"
    )


def tool_reply(name: str, arguments: dict[str, Any], n: int = 1) -> bytes:
    return _message(
        [
            (
                {"type": "tool_use", "id": f"toolu_fake_{n}", "name": name, "input": {}},
                {"type": "input_json_delta", "partial_json": json.dumps(arguments)},
            )
        ],
        "tool_use",
    )


def read_reply(path: str) -> bytes:
    return tool_reply("Read", {"file_path": path})


def tool_results(messages: list[Any]) -> list[dict[str, Any]]:
    """The tool_result blocks of a request, in order."""
    return [
        block
        for m in messages
        if isinstance(m, dict) and isinstance(m.get("content"), list)
        for block in m["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]


class FakeAPI:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.script: list[tuple[str, dict[str, Any]]] = []
        self.answer = "done"  # the text of a plain reply (an audit judge's label, say)

    def reply(self, body: dict[str, Any]) -> bytes:
        messages = body.get("messages", [])
        text = json.dumps(messages)
        done = len(tool_results(messages))
        if done < len(self.script):
            name, arguments = self.script[done]
            return tool_reply(name, arguments, done + 1)
        has_result = "tool_result" in text
        match = re.search(r"READ-FILE (\S+?)(?:\\n|\"|\s)", text)
        if match and not has_result:
            return read_reply(match.group(1))
        return text_reply(self.answer)

    def messages_text(self) -> list[str]:
        with self.lock:
            return [json.dumps(r.get("messages", []), ensure_ascii=False) for r in self.requests]


@contextmanager
def fake_api() -> Iterator[tuple[FakeAPI, str]]:
    api = FakeAPI()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_HEAD(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self) -> None:
            body = b"{}"
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            if self.path.startswith("/v1/messages") and "count_tokens" not in self.path:
                with api.lock:
                    api.requests.append(body)
                payload = api.reply(body)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
            else:
                payload = json.dumps({"input_tokens": 10}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    with serving(Handler) as url:
        yield api, url
