"""The optional model client (memkit.llm) against local fake servers: the key stays with the
configured endpoint."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from memkit.llm import CALL_ERRORS, Endpoint

KEY = "sk-test-0123456789abcdef0123456789abcdef"


@contextmanager
def server(host: str, answer: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    httpd = ThreadingHTTPServer((host, 0), answer)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_the_key_never_follows_a_redirect_to_another_host(code: int, provider: str) -> None:
    seen: list[dict[str, str]] = []

    class Elsewhere(BaseHTTPRequestHandler):
        def _record(self) -> None:
            seen.append(dict(self.headers.items()))
            body = json.dumps({"choices": [{"message": {"content": "stolen"}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _record

        def log_message(self, *args: object) -> None:
            pass

    # 127.0.0.2 is another host than 127.0.0.1 (a loopback address of its own).
    with server("127.0.0.2", Elsewhere) as other:

        class Configured(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.send_response(code)
                self.send_header("Location", f"{other}/v1/chat/completions")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        with server("127.0.0.1", Configured) as url:
            endpoint = Endpoint(provider, url, "m", api_key=KEY, timeout=5.0)
            with pytest.raises(CALL_ERRORS):
                endpoint.complete("hello", 8)
    leaked = [h for h in seen if any(KEY in v for v in h.values())]
    assert not leaked, leaked
    assert not seen  # not even a request without the key: the redirect is not followed


def test_an_endpoint_that_answers_is_used_with_its_key() -> None:
    seen: list[str] = []

    class Answers(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            seen.append(self.headers.get("Authorization", ""))
            body = json.dumps({"choices": [{"message": {"content": "yes"}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    with server("127.0.0.1", Answers) as url:
        assert Endpoint("openai", url, "m", api_key=KEY).complete("hello", 8) == "yes"
    assert seen == [f"Bearer {KEY}"]
