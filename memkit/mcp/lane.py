"""Where the MCP server's tool calls run, one at a time, each within a budget that stops it;
and how often the writing tools may be called.

A call runs on the main thread, where a budget (`memkit.budget`) can stop it: a call past its
deadline is answered with an error by the server, and its work stops then rather than
holding every later call (a save that took 15 s of checks, a git that hangs). Reading
tools go before waiting writes: a search is not queued behind a burst of saves. Off the main
thread (a server run inside another program, as the tests do) a worker thread runs the calls,
which a budget cannot stop.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from memkit.budget import OutOfTime, budget, can_stop

Job = tuple[int, int, "concurrent.futures.Future[Any]", Callable[[], Any], float]
_STOP = 2  # priority of the end: after every call still waiting


class Lane:
    """Calls by priority (0: reads, 1: writes), then in order of arrival."""

    def __init__(self) -> None:
        self.stoppable = can_stop()
        self._jobs: queue.PriorityQueue[Job] = queue.PriorityQueue()
        self._order = itertools.count()
        self._worker = (
            None
            if self.stoppable
            else concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="memkit")
        )

    def submit(
        self, call: Callable[[], Any], *, seconds: float, priority: int = 0
    ) -> concurrent.futures.Future[Any]:
        """`call()` as soon as the calls before it are done, stopped after `seconds` (its
        future then raises OutOfTime)."""
        if self._worker is not None:
            return self._worker.submit(call)
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._jobs.put((priority, next(self._order), future, call, seconds))
        return future

    def serve(self, reader: Callable[[], None]) -> None:
        """Run `reader` (it reads the client's messages and submits calls) on a thread of its
        own, and the calls here, until the reader is done and every call it made is run."""
        if self._worker is not None:
            try:
                reader()
            finally:
                self._worker.shutdown(wait=False)
            return

        def read() -> None:
            try:
                reader()
            finally:
                done: concurrent.futures.Future[Any] = concurrent.futures.Future()
                self._jobs.put((_STOP, next(self._order), done, lambda: None, 0.0))

        threading.Thread(target=read, name="memkit-mcp-reader", daemon=True).start()
        while True:
            priority, _, future, call, seconds = self._jobs.get()
            if priority == _STOP:
                return
            if not future.set_running_or_notify_cancel():
                continue
            try:
                with budget(seconds):
                    result = call()
            except (OutOfTime, Exception) as exc:  # the server answers for it
                future.set_exception(exc)
            else:
                future.set_result(result)


class Rate:
    """At most `burst` calls at once, refilled at `per_minute`: a token bucket."""

    def __init__(self, burst: int, per_minute: float) -> None:
        self.burst = burst
        self.per_second = per_minute / 60.0
        self._tokens = float(burst)
        self._at = time.monotonic()
        self._lock = threading.Lock()

    def take(self) -> float:
        """0.0 when a call may go now (and counts it), else the seconds until one may."""
        with self._lock:
            now = time.monotonic()
            self._tokens = min(self.burst, self._tokens + (now - self._at) * self.per_second)
            self._at = now
            if self._tokens >= 1.0:
                self._tokens -= 1.0
                return 0.0
            return (1.0 - self._tokens) / self.per_second
