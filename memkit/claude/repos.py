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
    if repos:
        return [
            Path(r).expanduser().resolve()
            for r in repos
            if (Path(r) / "memkit.yaml").expanduser().is_file()
        ]
    from memkit.repo import nearest_repo  # noqa: PLC0415

    start = Path(str(payload.get("cwd") or os.environ.get("CLAUDE_PROJECT_DIR") or Path.cwd()))
    found = nearest_repo(start)
    return [found] if found is not None else []


WARM = False  # set by the engine: the index stays open and vectors are affordable
_READERS: dict[Path, Any] = {}


def reader(root: Path) -> Any:
    from memkit.index import IndexUnavailable, open_index  # noqa: PLC0415
    from memkit.index.store import current_generation  # noqa: PLC0415

    cached = _READERS.get(root)
    gen = current_generation(root)
    if cached is not None and gen is not None and cached.generation == gen.name:
        return cached
    try:
        if WARM:
            reader = open_index(root)
        else:
            from memkit.index.lite import open_light  # noqa: PLC0415

            reader = open_light(root)  # a fresh hook process: skip the full meta.json
    except IndexUnavailable:
        # Build it in the background; this prompt goes without memory rather than waiting.
        start_index(root, detached=True)
        return None
    _READERS[root] = reader
    return reader


def start_index(root: Path, *, detached: bool) -> subprocess.Popen[bytes]:
    """`memkit index --quiet` for `root` in a child process, not waited for. `detached`: in a
    session of its own, for a hook process that exits before the build ends."""
    return subprocess.Popen(
        [sys.executable, "-m", "memkit", "index", "--quiet", "--repo", str(root)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=detached,
    )


def open_roots() -> list[Path]:
    """The repositories whose index this process holds open."""
    return list(_READERS)


_SCOPES: dict[Path, tuple[float, frozenset[str] | None]] = {}
SCOPE_TTL = 60.0  # identity costs git calls; in the warm engine it is reused for a minute


def scopes(root: Path) -> frozenset[str] | None:
    import time  # noqa: PLC0415

    from memkit.roles import identify  # noqa: PLC0415

    cached = _SCOPES.get(root)
    if cached is not None and time.monotonic() - cached[0] < SCOPE_TTL:
        return cached[1]
    try:
        scopes: frozenset[str] | None = identify(root).readable_scopes()
    except OSError:
        scopes = None
    _SCOPES[root] = (time.monotonic(), scopes)
    return scopes
