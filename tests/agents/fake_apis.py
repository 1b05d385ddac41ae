"""Fake model APIs on 127.0.0.1 for driving the real Codex CLI (OpenAI Responses API), Gemini
CLI (Gemini's generateContent) and OpenCode (an OpenAI-compatible chat completions API)
offline: one server speaks all three, records every request body, answers a short text, and
answers with a scripted tool call where a test asks for one (`FakeAPIs.script`: the n-th
request already holding n tool results is answered with the n-th call)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.helpers import serving


def _events(events: list[dict[str, Any]], *, named: bool) -> bytes:
    out = ""
    for event in events:
        head = f"event: {event['type']}\n" if named else ""
        out += f"{head}data: {json.dumps(event)}\n\n"
    return out.encode()


def responses_reply(text: str, call: tuple[str, dict[str, Any]] | None, n: int) -> bytes:
    """A streamed Responses API answer: a message, or a function call."""
    if call is None:
        item: dict[str, Any] = {
            "type": "message",
            "role": "assistant",
            "id": f"msg_{n}",
            "content": [{"type": "output_text", "text": text}],
        }
    else:
        name, arguments = call
        item = {
            "type": "function_call",
            "id": f"fc_{n}",
            "call_id": f"call_{n}",
            "name": name,
            "arguments": json.dumps(arguments),
        }
        if "/" in name:  # a tool of a namespace (Codex offers each MCP server's as one)
            item["namespace"], item["name"] = name.split("/", 1)
    usage = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
    return _events(
        [
            {"type": "response.created", "response": {"id": f"resp_{n}"}},
            {"type": "response.output_item.done", "item": item},
            {"type": "response.completed", "response": {"id": f"resp_{n}", "usage": usage}},
        ],
        named=True,
    )


def gemini_reply(text: str, call: tuple[str, dict[str, Any]] | None) -> dict[str, Any]:
    part = {"text": text} if call is None else {"functionCall": {"name": call[0], "args": call[1]}}
    return {
        "candidates": [
            {"content": {"parts": [part], "role": "model"}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
    }


def chat_reply(text: str, call: tuple[str, dict[str, Any]] | None, n: int) -> bytes:
    """A streamed chat completions answer: text, or a tool call."""
    if call is None:
        delta: dict[str, Any] = {"role": "assistant", "content": text}
        finish = "stop"
    else:
        function = {"name": call[0], "arguments": json.dumps(call[1])}
        tool = {"index": 0, "id": f"call_{n}", "type": "function", "function": function}
        delta, finish = {"role": "assistant", "tool_calls": [tool]}, "tool_calls"
    chunks = [
        {"id": f"c{n}", "object": "chat.completion.chunk", "created": 0, "model": "fake",
         "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {"id": f"c{n}", "object": "chat.completion.chunk", "created": 0, "model": "fake",
         "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
         "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}},
    ]  # fmt: skip
    return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks).encode() + b"data: [DONE]\n\n"


def tool_results(path: str, body: dict[str, Any]) -> list[str]:
    """The text of every tool result a request carries back to the model, in order."""
    found: list[str] = []
    if path.endswith("/responses"):
        for item in body.get("input", []):
            if isinstance(item, dict) and item.get("type") == "function_call_output":
                found.append(json.dumps(item.get("output"), ensure_ascii=False))
    elif "chat/completions" in path:
        for message in body.get("messages", []):
            if isinstance(message, dict) and message.get("role") == "tool":
                found.append(json.dumps(message.get("content"), ensure_ascii=False))
    else:
        for content in body.get("contents", []):
            for part in content.get("parts", []) if isinstance(content, dict) else []:
                if isinstance(part, dict) and "functionResponse" in part:
                    found.append(json.dumps(part["functionResponse"], ensure_ascii=False))
    return found


class FakeAPIs:
    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.lock = threading.Lock()
        self.script: list[tuple[str, dict[str, Any]]] = []
        self.answer = "done"

    def next_call(self, path: str, body: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        done = len(tool_results(path, body))
        return self.script[done] if done < len(self.script) else None

    def texts(self) -> list[str]:
        """Every model request's body, as text (what the model was given)."""
        with self.lock:
            return [json.dumps(body, ensure_ascii=False) for _, body in self.requests]

    def text(self) -> str:
        return "\n".join(self.texts())

    def results(self) -> list[str]:
        """The tool results the model was given back, the last request's (every one so far)."""
        with self.lock:
            found = [tool_results(path, body) for path, body in self.requests]
        return max(found, key=len, default=[])

    def tools(self) -> set[str]:
        """The names of the tools the requests offered the model."""
        names: set[str] = set()
        with self.lock:
            bodies = [body for _, body in self.requests]
        for body in bodies:
            for tool in body.get("tools", []):
                if not isinstance(tool, dict):
                    continue
                names.add(str(tool.get("name") or tool.get("function", {}).get("name") or ""))
                for decl in tool.get("functionDeclarations", []):
                    names.add(str(decl.get("name")))
        return names - {""}


@contextmanager
def fake_apis() -> Iterator[tuple[FakeAPIs, str]]:
    api = FakeAPIs()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _send(self, payload: bytes, kind: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self) -> None:
            self._send(
                json.dumps({"object": "list", "data": [], "models": []}).encode(),
                "application/json",
            )

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            path = self.path.split("?")[0]
            sse = "text/event-stream"
            if path.endswith(":countTokens"):
                self._send(json.dumps({"totalTokens": 1}).encode(), "application/json")
                return
            with api.lock:
                api.requests.append((path, body))
                n = len(api.requests)
            call = api.next_call(path, body)
            if path.endswith("/responses"):
                self._send(responses_reply(api.answer, call, n), sse)
            elif path.endswith("chat/completions"):
                self._send(chat_reply(api.answer, call, n), sse)
            elif path.endswith(":streamGenerateContent"):
                self._send(
                    f"data: {json.dumps(gemini_reply(api.answer, call))}\r\n\r\n".encode(), sse
                )
            elif path.endswith(":generateContent"):
                # Gemini CLI's router asks a small model how complex the prompt is.
                routed = '{"complexity_reasoning": "simple", "complexity_score": 10}'
                self._send(json.dumps(gemini_reply(routed, None)).encode(), "application/json")
            else:
                self._send(b"{}", "application/json")

        def log_message(self, *args: object) -> None:
            pass

    with serving(Handler) as url:
        yield api, url
