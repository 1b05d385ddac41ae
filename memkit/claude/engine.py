"""The warm engine: one process per memory repository that keeps the index and the model
loaded and answers hooks over a Unix socket in `.memkit/` (mode 0600, no TCP port).

A fresh Python process that loads numpy, tokenizers and the model costs ~0.5 s here; the hook
client (`memkit-hook`) instead imports only the standard library, sends the hook's JSON to the
engine and prints the answer. One engine per repository (an flock on `.memkit/engine.lock`);
it exits after an idle timeout, and picks up a new index generation on the next request.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from memkit.budget import OutOfTime, budget
from memkit.claude.handlers import HANDLERS
from memkit.claude.protocol import fail_open
from memkit.errors import MemkitError
from memkit.files import memkit_dir, write_atomic
from memkit.index.manifest import is_stale
from memkit.org.serving import warm_up as warm_up_org
from memkit.recall.client import ASKER, HUNG, IDENTITY_VARS, socket_path, with_socket_path
from memkit.recall.hooklog import log_error, log_line
from memkit.recall.readers import Readers, start_index
from memkit.recall.trust import private_folder
from memkit.recall.usage import usage_log

LOCK = "engine.lock"
PID = "engine.pid"
IDLE_SECONDS = 600.0
CHECK_SECONDS = 10.0
MAINTAIN_SECONDS = 2.0  # usage-log folding per check, at most
MAX_REQUEST = 4_000_000
# Seconds a request may take: its asker waits 1.5 s at most (a hook: memkit.claude.main) or
# 2 s (the MCP server's search: memkit.mcp.memory), then answers by itself; the work past that
# is lost, and holds every request behind it.
REQUEST_BUDGET = 2.5


def _handle(raw: bytes, root: Path, readers: Readers) -> bytes:
    event, repo_line, payload = raw.decode("utf-8").split("\n", 2)
    if event not in HANDLERS:
        return b""
    payload, asker = _asker_of(payload)
    repos = [r for r in repo_line.split("\t") if r]
    out: list[str] = []

    class Sink:
        def write(self, text: str) -> None:
            out.append(text)

        def flush(self) -> None:
            pass

    class Source:
        def read(self, _n: int) -> str:
            return str(payload)

    with _as_asker(asker):
        fail_open(
            event, lambda data: HANDLERS[event](data, repos, readers), Source(), Sink(), str(root)
        )
    return "".join(out).encode("utf-8")


def _answer(raw: bytes, root: Path, readers: Readers) -> bytes:
    """`_handle` within REQUEST_BUDGET: past it, the hook has stopped waiting (and answered by
    itself), so the work stops too, instead of holding the engine for every later hook."""
    try:
        with budget(REQUEST_BUDGET):
            return _handle(raw, root, readers)
    except OutOfTime:
        event = raw[:40].split(b"\n", 1)[0].decode("utf-8", "replace")
        log_line(
            str(root),
            "engine",
            f"{event} stopped after its {REQUEST_BUDGET:g} s budget (its asker had stopped "
            "waiting and answered by itself)",
        )
        return b""


def _asker_of(payload: str) -> tuple[str, dict[str, str] | None]:
    """The payload without the identity the hook added (`client.with_asker`), and that
    identity; None when it carries none (a hook of an older memkit)."""
    try:
        data = json.loads(payload)
    except ValueError:
        return payload, None
    if not isinstance(data, dict) or not isinstance(data.get(ASKER), str):
        return payload, None
    pairs = (p.partition("=") for p in data.pop(ASKER).split("\0") if p)
    asker = {k: v for k, _, v in pairs if k in IDENTITY_VARS}
    return json.dumps(data, ensure_ascii=False), asker


@contextlib.contextmanager
def _as_asker(asker: dict[str, str] | None) -> Iterator[None]:
    """For one request, the identity variables of the hook that sent it: git (and so the
    scopes served, the author of a summary, whose summary is given) then sees the person
    asking, not the one whose hook started the engine. Requests are answered one at a time,
    so the process's environment is the request's until it is answered. A client that sends
    no identity (an older memkit-hook) is answered as the engine's own."""
    if asker is None:
        yield
        return
    before = {name: os.environ.get(name) for name in IDENTITY_VARS}
    for name in IDENTITY_VARS:
        if name in asker:
            os.environ[name] = asker[name]
        else:
            os.environ.pop(name, None)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class _Freshness:
    """Keeps the indexes this engine reads following their working trees.

    No git hook fires on a plain commit or an edit, yet the next prompt should know the atom
    just written. After answering a request, or while idle, at most every `every` seconds,
    the engine compares each repository it serves (its own, and any other a hook named, e.g.
    a personal one) with what its index was built from (no parsing; ~0.07 s at 10,000 atoms)
    and, when they differ, lets a child `memkit index` refresh it; the next request after that
    picks up the new generation. The comparison runs in a thread: it walks the tree and waits
    on git, and a prompt arriving meanwhile must not wait for it.
    """

    def __init__(self, root: Path, every: float, readers: Readers) -> None:
        self.root = root
        self.readers = readers
        self.every = every
        self.due = 0.0
        self.worker: threading.Thread | None = None
        self.children: dict[Path, subprocess.Popen[bytes]] = {}

    def tick(self) -> None:
        now = time.monotonic()
        if self.every <= 0 or now < self.due:
            return
        if self.worker is not None and self.worker.is_alive():
            return
        self.due = now + self.every
        roots = list(dict.fromkeys([self.root, *self.readers.open_roots()]))
        self.worker = threading.Thread(target=self._check, args=(roots,), daemon=True)
        self.worker.start()

    def _check(self, roots: list[Path]) -> None:
        for root in roots:
            child = self.children.get(root)
            if child is not None and child.poll() is None:
                continue  # still refreshing
            if not (root / "memkit.yaml").is_file():
                continue  # gone (a deleted clone): nothing to refresh
            try:
                if is_stale(root):
                    child = start_index(root, detached=False, foreground=True)
                    if child is not None:
                        self.children[root] = child
                with usage_log(root) as usage:
                    # Folds old uses (a log of any size reads as fast), a few seconds'
                    # worth per check: a huge old log is folded over several.
                    usage.maintain(budget=MAINTAIN_SECONDS)
            except Exception:  # the engine must outlive a failed refresh
                log_error(str(root), "engine: index refresh")

    def close(self) -> None:
        # The children's builds are atomic and short; wait for them rather than leave orphans.
        if self.worker is not None:
            self.worker.join(timeout=60)
        for child in self.children.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(timeout=60)


def serve(root: Path, idle: float = IDLE_SECONDS, check_every: float = CHECK_SECONDS) -> int:
    """Run the engine for `root` until it has been idle for `idle` seconds; every
    `check_every` seconds between requests, refresh the index if the atoms changed."""
    folder = memkit_dir(root)
    if not private_folder(str(root)):
        # Its socket would be someone else's to replace, its requests theirs to read.
        raise MemkitError(f"{folder} is not yours alone (owner or mode); no engine serves it")
    with (folder / LOCK).open("a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return 0  # another engine serves this repository
        readers = Readers(warm=True)  # the index stays open and vectors are affordable
        # SIGTERM (a user's kill, a logout) must still remove the socket on the way out.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        path = Path(socket_path(root))
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)  # the socket is born 0600: only this user may talk to it
        try:
            with_socket_path(str(path), server.bind)
        finally:
            os.umask(old_umask)
        server.listen(16)
        server.settimeout(1.0)
        pid_file = folder / PID
        try:
            bound = path.stat().st_ino
            write_atomic(pid_file, f"{os.getpid()}\n", durable=False)
        except FileNotFoundError:  # .memkit/ removed as the engine started: nothing to serve
            server.close()
            return 0
        (folder / HUNG).unlink(missing_ok=True)  # a new engine: hooks may ask it again
        last = time.monotonic()
        fresh = _Freshness(root, check_every, readers)
        try:
            _warm_up(root, readers)
            while time.monotonic() - last < idle:
                try:
                    conn, _ = server.accept()
                except TimeoutError:
                    if not _still_ours(path, bound):
                        break  # the repository or its .memkit/ is gone: do not linger
                    fresh.tick()
                    continue
                last = time.monotonic()
                with conn:
                    conn.settimeout(5.0)
                    try:
                        conn.sendall(_answer(_read_request(conn), root, readers))
                    except (OSError, ValueError, KeyError):
                        continue  # a broken client; the hook falls back on its own
                fresh.tick()  # after the answer is sent, in a thread: never delays a prompt
        finally:
            server.close()
            fresh.close()
            readers.close()
            if _still_ours(path, bound):
                path.unlink()
            with contextlib.suppress(OSError):
                if pid_file.read_text(encoding="utf-8").strip() == str(os.getpid()):
                    pid_file.unlink()
    return 0


def _still_ours(path: Path, inode: int) -> bool:
    try:
        return path.stat().st_ino == inode
    except OSError:
        return False


STOPPED, KILLED, NOT_RUNNING, STILL_RUNNING = "stopped", "killed", "not running", "still running"


def stop(root: Path, wait: float = 10.0, kill_wait: float = 5.0) -> tuple[str, int | None]:
    """Stop the engine of `root`: SIGTERM, then SIGKILL if it has not exited after `wait`
    seconds. Returns what happened (STOPPED, KILLED, NOT_RUNNING or STILL_RUNNING) and the
    pid, judged by the engine's lock: held exactly as long as the engine lives."""
    folder = root / ".memkit"
    try:
        pid = int((folder / PID).read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return NOT_RUNNING, None
    if not _engine_alive(folder):
        (folder / PID).unlink(missing_ok=True)  # a stale pid: nobody holds the lock
        return NOT_RUNNING, None
    for sig, seconds, outcome in (
        (signal.SIGTERM, wait, STOPPED),
        (signal.SIGKILL, kill_wait, KILLED),
    ):
        with contextlib.suppress(ProcessLookupError):  # gone since the lock check
            os.kill(pid, sig)
        if _gone_within(folder, seconds):
            if outcome == KILLED:  # it could not clean up after itself
                with contextlib.suppress(OSError):
                    Path(socket_path(root)).unlink()
                (folder / PID).unlink(missing_ok=True)
            return outcome, pid
    return STILL_RUNNING, pid


def _gone_within(folder: Path, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while _engine_alive(folder):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True


def _engine_alive(folder: Path) -> bool:
    try:
        lock = (folder / LOCK).open("a")
    except OSError:
        return False
    with lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        return False


def _warm_up(root: Path, readers: Readers) -> None:
    """Open the index and load the model now, not on the first prompt."""
    with contextlib.suppress(Exception):
        reader = readers.reader(root)
        if reader is not None:
            reader.encode("warm up")
    with contextlib.suppress(Exception):  # the org costs its own results, never the engine
        warm_up_org(readers, root)
    # The index's atom table (100,000 dicts at 100,000 atoms) lives as long as the engine:
    # out of the collector's sight, or every full collection walks it (a prompt's p95).

    gc.freeze()


def _read_request(conn: socket.socket) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_REQUEST:
            raise ValueError("request too large")
    return b"".join(chunks)
