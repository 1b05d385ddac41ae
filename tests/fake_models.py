"""A fake of the model APIs memkit speaks, on 127.0.0.1: Ollama's /api/generate, an
OpenAI-compatible /v1/chat/completions and the Anthropic Messages API's /v1/messages. It
records what it was sent and answers in each API's shape (the audit's judge, capture's L1/L2)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.helpers import serving


@dataclass
class FakeModels:
    reply: str = ""
    answer_for: Callable[[str], str] | None = None  # the request body as JSON text -> answer
    delay: float = 0.0
    seen: list[tuple[str, dict[str, str], dict[str, Any]]] = field(default_factory=list)

    def answer(self, body: dict[str, Any]) -> str:
        if self.answer_for is not None:
            return self.answer_for(json.dumps(body, ensure_ascii=False))
        return self.reply


@contextmanager
def serve(models: FakeModels) -> Iterator[str]:
    """Serve `models` until the block ends; yields the base URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            models.seen.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            time.sleep(models.delay)
            answer = models.answer(body)
            if self.path == "/api/generate":
                reply: dict[str, Any] = {"response": answer}
            elif self.path == "/v1/chat/completions":
                reply = {"choices": [{"message": {"role": "assistant", "content": answer}}]}
            elif self.path == "/v1/messages":
                reply = {"content": [{"type": "text", "text": answer}], "role": "assistant"}
            else:
                self.send_error(404)
                return
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    with serving(Handler) as url:
        yield url
