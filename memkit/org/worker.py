"""The org's queries in a serving process (the warm engine, the MCP server): one thread owns
the Milvus connection, and a caller waits for an answer only as long as it can afford.

A prompt hands its query over at once and collects the answer after local recall, within the
org's timeout; past it the answer is dropped, and while a query is still running the next
prompt does not queue behind it. Milvus absent or failing (no file, a refused connection, an
error) closes the connection and rests the org for BACKOFF_SECONDS: every prompt meanwhile
costs nothing. A Milvus Lite file is let go when a command asks for it (`memkit.org.lease`)
or after IDLE_SECONDS without a query. pymilvus is imported in the thread, on first use.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memkit.org import lease
from memkit.org.settings import OrgSettings

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.org.publish", "memkit.org.search", "memkit.org.store"}

log = logging.getLogger(__name__)
BACKOFF_SECONDS = 30.0
IDLE_SECONDS = 300.0
POLL_SECONDS = 0.5
SESSIONS_KEPT = 64


@dataclass
class Job:
    """One query, and its answer once `done` is set."""

    query: str
    email: str
    limit: int
    skip_repos: Sequence[str] = ()
    floor: bool = True
    done: threading.Event = field(default_factory=threading.Event)
    hits: list[Any] | None = None  # memkit.org.search.OrgHit, None when it failed
    error: str = ""

    def wait(self, seconds: float) -> list[Any] | None:
        """The hits, if they came within `seconds`; None otherwise (late, failed)."""
        if not self.done.wait(max(0.0, seconds)):
            return None
        return self.hits


_IDLE = Job("", "", 0)  # no job came: a chance to let the Lite file go


class OrgWorker:
    def __init__(self, settings: OrgSettings) -> None:
        self.settings = settings
        self._jobs: queue.Queue[Job | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._last: Job | None = None
        self._rest_until = 0.0
        self._given: dict[str, set[str]] = {}
        self.why_not = ""  # the last reason the org did not answer, for logs and doctor

    def submit(
        self,
        query: str,
        email: str,
        *,
        limit: int,
        skip_repos: Sequence[str] = (),
        floor: bool = True,
    ) -> Job | None:
        """Start a query; None when the org is resting or still busy with the last one."""
        if time.monotonic() < self._rest_until:
            return None
        if self._last is not None and not self._last.done.is_set():
            self.why_not = "the last org query is still running"
            return None
        job = self._last = Job(query, email, limit, skip_repos, floor)
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="memkit-org", daemon=True)
            self._thread.start()
        self._jobs.put(job)
        return job

    def warm_up(self) -> None:
        """Import the client now and open the org in the thread: importing pymilvus holds the
        interpreter ~1 s, which a prompt answered meanwhile would pay."""
        import memkit.org.search  # noqa: F401  (what the thread imports, done here)

        self.submit("", "", limit=0)

    def given(self, session: str) -> set[str]:
        """The org atoms already added to this session's prompts (nothing twice)."""
        if session not in self._given and len(self._given) >= SESSIONS_KEPT:
            self._given.pop(next(iter(self._given)))
        return self._given.setdefault(session, set())

    def close(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            self._jobs.put(None)
            self._thread.join(timeout=30)

    # -- the thread --------------------------------------------------------------------------
    def _run(self) -> None:
        searcher: Any = None
        store: Any = None
        last = time.monotonic()
        while True:
            try:
                job = self._jobs.get(timeout=POLL_SECONDS)
            except queue.Empty:
                job = _IDLE
            if job is None:
                break
            if store is not None and self._let_go(last):
                _closed(store)
                store = searcher = None
            if job is _IDLE:
                continue
            last = time.monotonic()
            try:
                if searcher is None:
                    store, searcher = self._open()
                job.hits = searcher.search(
                    job.query,
                    job.email,
                    limit=job.limit,
                    floor=job.floor,
                    skip_repos=job.skip_repos,
                )
            except Exception as exc:  # the org costs its own results, never the prompt
                job.error = self.why_not = f"{type(exc).__name__}: {exc}"
                log.warning("org search failed (%s); resting %.0f s", exc, BACKOFF_SECONDS)
                self._rest_until = time.monotonic() + BACKOFF_SECONDS
                _closed(store)
                store = searcher = None
            finally:
                job.done.set()
        _closed(store)

    def _let_go(self, last: float) -> bool:
        idle = time.monotonic() - last > IDLE_SECONDS
        asked = self.settings.is_lite and lease.release_asked(Path(self.settings.uri))
        return idle or asked

    def _open(self) -> tuple[Any, Any]:
        from memkit.org.publish import org_model
        from memkit.org.search import OrgSearch
        from memkit.org.store import OrgStore, OrgUnavailable

        if self.settings.is_lite:
            path = Path(self.settings.uri)
            if not path.is_dir():
                raise OrgUnavailable(f"nothing published at {path}")
            if lease.release_asked(path) or lease.held(path):
                raise OrgUnavailable(f"{path} is open in another process")
        store = OrgStore(self.settings, timeout=max(5.0, self.settings.timeout * 10)).open()
        try:
            if not store.exists():
                raise OrgUnavailable(f"nothing published at {store.where}")
            return store, OrgSearch(store, org_model())
        except BaseException:
            _closed(store)
            raise


def _closed(store: Any) -> None:
    if store is not None:
        with contextlib.suppress(Exception):
            store.close()
