"""What every request for memory needs first: the memory repositories of the session, each
one's index reader (kept open in a warm process), and the scopes the person asking may read."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from memkit.ownership import trusted
from memkit.recall.trust import named_repo, trusted_root
from memkit.recall.usage import UsageLog, usage_log

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {
    "memkit.index.opening",
    "memkit.index.store",
    "memkit.recall.client",
    "memkit.recall.hooklog",
    "memkit.roles",
}


def find_repos(payload: dict[str, Any], repos: Sequence[str]) -> list[Path]:
    """The repositories named with --repo that exist; with none named, the nearest one above
    the session's folder when this user may trust it (see `trust`)."""
    if repos:
        named = [found for r in repos if (found := named_repo(r)) is not None]
        return [Path(found).resolve() for found in named if trusted(found)]
    start = str(payload.get("cwd") or os.environ.get("CLAUDE_PROJECT_DIR") or Path.cwd())
    found = trusted_root([], start)
    return [Path(found)] if found is not None else []


REBUILD_MARK = "rebuild.started"
REBUILD_WAIT = 300.0  # seconds before a rebuild of the same damage is started again
SCOPE_TTL = 60.0  # identity costs git calls; in the warm engine it is reused for a minute


class Readers:
    """What one process serving memory holds per repository: its index reader, why it has
    none (`problems`: "missing" or "damaged", SessionStart says it), the scopes each asker may
    read, and the usage log. `warm`: a long-lived process (the engine, the MCP server) that
    keeps readers and logs open, checks every file of an index once, and affords vectors; a
    hook process without an engine is not. Made once by whoever serves, and passed in."""

    def __init__(self, *, warm: bool) -> None:
        self.warm = warm
        self.problems: dict[Path, str] = {}
        self._open: dict[Path, Any] = {}
        self._scopes: dict[tuple[Path, tuple[str | None, ...]], tuple[float, frozenset[str] | None]]
        self._scopes = {}
        self._logs: dict[Path, UsageLog] = {}
        # What other rooms keep for the process's life, by name (the org's query thread,
        # `memkit.org.serving`): recall itself never looks inside.
        self.services: dict[str, Any] = {}

    def reader(self, root: Path) -> Any:
        """The index reader of `root`, kept open while warm until a new build is published
        (compared by build id: a rebuilt `gen-000001` is a new index). None when there is none
        yet, or it cannot be read: then it is built, or rebuilt, in the background."""
        from memkit.index.store import current_generation, read_checksums

        cached = self._open.get(root)
        gen = current_generation(root)
        if cached is not None and gen is not None and cached.generation == gen.name:
            seal = read_checksums(gen)
            if seal is not None and seal["build"] == cached.build:
                return cached
        from memkit.index.opening import open_or_heal

        self.problems.pop(root, None)
        reader, problem = open_or_heal(root, deep=self.warm, heal=_heal_later)
        if reader is None:
            self.problems[root] = problem
            return None
        reader.on_damage = lambda found: rebuild(root, found)
        self._open[root] = reader
        return reader

    def open_roots(self) -> list[Path]:
        """The repositories whose index this process holds open."""
        return list(self._open)

    def scopes(self, root: Path) -> frozenset[str] | None:
        """The scopes the person asking may read. In the warm engine that is the person whose
        hook sent the request (`engine._as_asker`): cached per identity, never across two."""
        from memkit.recall.client import identity_key
        from memkit.roles import identify

        key = (root, identity_key())
        cached = self._scopes.get(key)
        if cached is not None and time.monotonic() - cached[0] < SCOPE_TTL:
            return cached[1]
        try:
            who = identify(root)
            # `author:` entries: the episodic atoms this person wrote are theirs to be served.
            names = (who.email, who.user) if who.email else ()  # no identity: nobody's
            authors = {f"author:{name.lower()}" for name in names if name}
            scopes: frozenset[str] | None = who.readable_scopes() | authors
        except OSError:
            scopes = None
        if len(self._scopes) > 64:  # many identities over an engine's life: keep the newest
            self._scopes.pop(next(iter(self._scopes)))
        self._scopes[key] = (time.monotonic(), scopes)
        return scopes

    @contextlib.contextmanager
    def usage_log(self, root: Path) -> Iterator[UsageLog]:
        """The usage log of `root`: while warm, one connection per repository for the
        process's life instead of one per request."""
        if not self.warm:
            with usage_log(root) as fresh:
                yield fresh
            return
        kept = self._logs.get(root)
        if kept is None or not kept.writable:
            if kept is not None:
                kept.close()
            kept = self._logs[root] = UsageLog(root)  # a read-only one is retried next time
        yield kept

    def close(self) -> None:
        for log in self._logs.values():
            log.close()
        self._logs.clear()
        self._open.clear()
        for service in self.services.values():
            for held in service.values() if isinstance(service, dict) else ():
                if callable(getattr(held, "close", None)):
                    held.close()
        self.services.clear()


def _heal_later(root: Path, problem: str, detail: str) -> None:
    """A missing index is built, a damaged one rebuilt, in the background: this request goes
    without memory (or with what a damaged reader still answers) rather than waiting."""
    from memkit.index.opening import DAMAGED

    if problem == DAMAGED:
        rebuild(root, detail)
    else:
        start_index(root, detached=True, foreground=True)


def rebuild(root: Path, problem: str) -> None:
    """A damaged index: one line in hooks.log, and one full rebuild in the background (not
    one per hook: a mark in the index folder, naming the damaged generation, holds the next
    ones off for REBUILD_WAIT). Damage to another generation (the one the last rebuild made,
    however soon after) is rebuilt at once."""
    from memkit.index.store import current_generation
    from memkit.recall.hooklog import log_line

    mark = root / ".memkit" / "index" / REBUILD_MARK
    gen = current_generation(root)
    try:
        # The generation's name and the time its folder was made: a rebuilt gen-000001
        # (after `.memkit/index/` was deleted) is not the one the mark names.
        damaged = f"{gen.name} {gen.stat().st_mtime_ns}" if gen is not None else "none"
    except OSError:
        damaged = "none"
    try:
        same = mark.read_text(encoding="utf-8").strip() == damaged
        if same and time.time() - mark.stat().st_mtime < REBUILD_WAIT:
            return
    except (OSError, UnicodeDecodeError):
        pass
    try:
        mark.write_text(damaged + "\n", encoding="utf-8")
    except OSError:
        log_line(str(root), "index", f"damaged, and cannot be rebuilt here: {problem}")
        return
    log_line(str(root), "index", f"damaged: {problem}; rebuilding it in the background")
    start_index(root, detached=True, full=True, foreground=True)


def start_index(
    root: Path, *, detached: bool, full: bool = False, foreground: bool = False, wait: bool = False
) -> subprocess.Popen[bytes] | None:
    """`memkit index --quiet` for `root` in a child process, not waited for. `detached`: in a
    session of its own, for a hook process that exits before the build ends. `foreground`:
    the child builds itself (passes --foreground). `wait`: for a build already running. None
    when `.memkit/` cannot be written (a read-only checkout): nothing could be built."""
    folder = root / ".memkit"
    if folder.exists() and not os.access(folder, os.W_OK):
        return None
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memkit",
            "index",
            "--quiet",
            *(["--full"] if full else []),
            *(["--foreground"] if foreground else []),
            *(["--wait"] if wait else []),
            "--repo",
            str(root),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=detached,
    )
