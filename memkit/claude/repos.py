"""What every hook needs first: the memory repositories of the session, each one's index
reader (kept open in the warm engine), and the scopes the current user may read."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def find_repos(payload: dict[str, Any], repos: Sequence[str]) -> list[Path]:
    """The repositories named with --repo that exist; with none named, the nearest one above
    the session's folder when this user may trust it (see `trust`)."""
    from memkit.claude.trust import find_root, named_repo  # noqa: PLC0415
    from memkit.ownership import trusted  # noqa: PLC0415

    if repos:
        named = [found for r in repos if (found := named_repo(r)) is not None]
        return [Path(found).resolve() for found in named if trusted(found)]
    start = str(payload.get("cwd") or os.environ.get("CLAUDE_PROJECT_DIR") or Path.cwd())
    found = find_root([], start)
    return [Path(found)] if found is not None else []


WARM = False  # set by the engine: the index stays open and vectors are affordable
_READERS: dict[Path, Any] = {}
PROBLEMS: dict[Path, str] = {}  # why a repository has no reader now (SessionStart says it)
REBUILD_MARK = "rebuild.started"
REBUILD_WAIT = 300.0  # seconds before a rebuild of the same damage is started again


def reader(root: Path) -> Any:
    """The index reader of `root`, kept open in the engine until a new build is published
    (compared by build id: a rebuilt `gen-000001` is a new index). None when there is none
    yet, or it cannot be read: then it is built, or rebuilt, in the background."""
    from memkit.index import IndexUnavailable, open_index  # noqa: PLC0415
    from memkit.index.search import IndexDamaged  # noqa: PLC0415
    from memkit.index.store import current_generation, read_checksums  # noqa: PLC0415

    cached = _READERS.get(root)
    gen = current_generation(root)
    if cached is not None and gen is not None and cached.generation == gen.name:
        seal = read_checksums(gen)
        if seal is not None and seal["build"] == cached.build:
            return cached
    PROBLEMS.pop(root, None)
    try:
        if WARM:
            # The engine checks every file's checksum once per build: bit rot too.
            reader = open_index(root, deep=True)
        else:
            from memkit.index.lite import open_light  # noqa: PLC0415

            reader = open_light(root)  # a fresh hook process: skip the full meta.json
    except IndexDamaged as exc:
        PROBLEMS[root] = "damaged"
        rebuild(root, str(exc))
        return None
    except IndexUnavailable:
        # Build it in the background; this prompt goes without memory rather than waiting.
        PROBLEMS[root] = "missing"
        start_index(root, detached=True, foreground=True)
        return None
    reader.on_damage = lambda problem: rebuild(root, problem)
    if reader.damage:
        rebuild(root, reader.damage)
    _READERS[root] = reader
    return reader


def rebuild(root: Path, problem: str) -> None:
    """A damaged index: one line in hooks.log, and one full rebuild in the background (not
    one per hook: a mark in the index folder, naming the damaged generation, holds the next
    ones off for REBUILD_WAIT). Damage to another generation (the one the last rebuild made,
    however soon after) is rebuilt at once."""
    import time  # noqa: PLC0415

    from memkit.claude.protocol import log_line  # noqa: PLC0415
    from memkit.index.store import current_generation  # noqa: PLC0415

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


def open_roots() -> list[Path]:
    """The repositories whose index this process holds open."""
    return list(_READERS)


_SCOPES: dict[tuple[Path, tuple[str | None, ...]], tuple[float, frozenset[str] | None]] = {}
SCOPE_TTL = 60.0  # identity costs git calls; in the warm engine it is reused for a minute


def scopes(root: Path) -> frozenset[str] | None:
    """The scopes the person asking may read. In the warm engine that is the person whose
    hook sent the request (`engine._as_asker`): cached per identity, never across two."""
    import time  # noqa: PLC0415

    from memkit.claude.client import identity_key  # noqa: PLC0415
    from memkit.roles import identify  # noqa: PLC0415

    key = (root, identity_key())
    cached = _SCOPES.get(key)
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
    if len(_SCOPES) > 64:  # many identities over an engine's life: keep the newest
        _SCOPES.pop(next(iter(_SCOPES)))
    _SCOPES[key] = (time.monotonic(), scopes)
    return scopes
