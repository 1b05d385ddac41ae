"""Real headless Chromium for tests, driven over the DevTools protocol through a pipe.

`--remote-debugging-pipe` gives the protocol on file descriptors 3 (commands in) and 4
(answers and events out), NUL-separated JSON: no port, no websocket library, nothing but the
standard library. Every request the page makes is recorded (`Network.requestWillBeSent`,
which Chromium reports before any policy blocks it), and so are console and security
messages.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    def __init__(self, binary: str, profile: Path) -> None:
        commands_r, commands_w = os.pipe()
        events_r, events_w = os.pipe()

        def wire() -> None:  # in the child: the pipe ends on fds 3 and 4, and nothing else
            a, b = os.dup(commands_r), os.dup(events_w)
            os.dup2(a, 3)
            os.dup2(b, 4)
            # Not the test worker's own descriptors (pytest-xdist talks to its controller
            # over pipes): a browser process outliving the test would hold them open.
            os.closerange(5, 1 << 16)

        self.proc = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            preexec_fn=wire,  # noqa: PLW1509  (only dup2 calls: safe before exec)
            close_fds=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(commands_r)
        os.close(events_w)
        self._out = commands_w
        self._in = events_r
        self._buf = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        self.session = ""

    def send(self, method: str, params: dict[str, Any] | None = None, timeout: float = 60) -> Any:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if self.session and not method.startswith("Target."):
            message["sessionId"] = self.session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            answer = self._read(deadline)
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def _read(self, deadline: float) -> dict[str, Any]:
        import select

        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("Chromium did not answer in time")
            ready, _, _ = select.select([self._in], [], [], left)
            if ready:
                chunk = os.read(self._in, 1 << 20)
                if not chunk:
                    raise EOFError("Chromium closed the pipe")
                self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        data: dict[str, Any] = json.loads(raw)
        return data

    def open_tab(self, width: int = 1280, height: int = 900, mobile: bool = False) -> None:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Network", "Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
        )

    def goto(self, url: str, timeout: float = 60) -> None:
        """Open `url` and wait for its load event and for the scripts it started."""
        self.events = [e for e in self.events if e.get("method") != "Page.loadEventFired"]
        self.send("Page.navigate", {"url": url})
        deadline = time.monotonic() + timeout
        while not any(e.get("method") == "Page.loadEventFired" for e in self.events):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} did not load")
            self.events.append(self._read(deadline))
        self.evaluate("new Promise(r => setTimeout(r, 50))")

    def evaluate(self, expression: str) -> Any:
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: Path, *, full_page: bool = False) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
            size = self.send("Page.getLayoutMetrics")["cssContentSize"]
            params["clip"] = {
                "x": 0,
                "y": 0,
                "width": size["width"],
                "height": size["height"],
                "scale": 1,
            }
        data = self.send("Page.captureScreenshot", params)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def requests(self) -> list[str]:
        return [
            e["params"]["request"]["url"]
            for e in self.events
            if e.get("method") == "Network.requestWillBeSent"
        ]

    def messages(self) -> list[str]:
        out = []
        for e in self.events:
            if e.get("method") == "Log.entryAdded":
                out.append(str(e["params"]["entry"].get("text", "")))
            elif e.get("method") == "Runtime.exceptionThrown":
                out.append(json.dumps(e["params"]["exceptionDetails"])[:500])
        return out

    def close(self) -> None:
        with suppress(OSError, RuntimeError, TimeoutError, EOFError):
            self.send("Browser.close", timeout=10)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._out)
        os.close(self._in)


@contextmanager
def browser(binary: str) -> Iterator[Browser]:
    """A fresh Chromium with a fresh profile, closed afterwards."""
    profile = Path(tempfile.mkdtemp(prefix="memkit-chromium-"))
    chrome = Browser(binary, profile)
    try:
        chrome.open_tab()
        yield chrome
    finally:
        chrome.close()
        shutil.rmtree(profile, ignore_errors=True)


def chromium_or_skip() -> str:
    """The browser for a module of browser tests; the module is skipped outside CI when none is
    installed (scripts/test.sh installs Debian's chromium); under CI=true a missing one fails."""
    found = find_chromium()
    if found is None:
        if os.environ.get("CI") == "true":
            raise RuntimeError(
                "Chromium is missing: scripts/test.sh installs Debian's chromium package; "
                "the site's browser tests must run in CI"
            )
        pytest.skip(
            "no chromium on PATH (apt-get install chromium, or run scripts/test.sh)",
            allow_module_level=True,
        )
    return found
