"""What capture remembers about one Claude Code session, between its hooks.

`.memkit/capture/sessions/<session>.json`: how far the transcript was read (a byte offset),
what the session touched so far (files read and edited, commands run, candidates found,
atoms it was given), tool errors still waiting for a fix, and the model tokens it spent. Each
hook loads it under the session's lock, changes it and writes it back atomically. Strings in
it are already free of `<private>` text.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from memkit.files import memkit_dir, private_dirs, write_atomic

FOLDER = "sessions"
KEEP_DAYS = 30  # session files older than this are removed at a SessionEnd
MAX_ITEMS = 40  # files, commands, candidates, atoms kept per list
_SAFE = re.compile(r"[^A-Za-z0-9_-]")


@dataclass
class SessionState:
    session: str
    project: str = ""
    started: str = ""
    transcript: str = ""
    offset: int = 0  # bytes of the transcript already read
    lines: int = 0  # lines of the transcript already read
    prompts: int = 0
    first_prompt: str = ""
    read: list[str] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    candidates: list[str] = field(default_factory=list)
    given: list[str] = field(default_factory=list)
    tools: dict[str, dict[str, str]] = field(default_factory=dict)  # tool_use id -> its call
    errors: list[dict[str, str]] = field(default_factory=list)  # failed calls awaiting a fix
    tokens: int = 0  # model tokens spent on this session's candidates
    episodic: str = ""  # the summary written for it
    asked: list[str] = field(default_factory=list)  # the prompts, shortened, for the summary
    heard: list[dict[str, Any]] = field(default_factory=list)  # the answer's proposals, until
    # the user's next prompt accepts them (does not dispute them) or disputes them
    left: list[str] = field(default_factory=list)  # the last answer's open next steps
    last_prompt: str = ""  # the latest prompt (2,000 characters): what the answer was about
    refused: dict[str, int] = field(default_factory=dict)  # answer statements refused, by why
    prints: list[int] = field(default_factory=list)  # fingerprints of what tools returned
    sources: list[str] = field(default_factory=list)  # the tools of this turn, latest last
    unwritten: bool = False  # a Stop waited in vain for its turn in the transcript

    def note(self, name: str, value: str) -> None:
        """Add `value` to the list `name` once, keeping the first MAX_ITEMS."""
        items: list[str] = getattr(self, name)
        if value and value not in items and len(items) < MAX_ITEMS:
            items.append(value)


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def safe_name(session: str) -> str:
    """A file name for a session id (Claude Code's are UUIDs; anything else is made safe)."""
    return _SAFE.sub("_", session)[:100]


def sessions_dir(root: Path) -> Path:
    """`<root>/.memkit/capture/sessions/` (not made here)."""
    return root / ".memkit" / "capture" / FOLDER


def state_path(root: Path, session: str) -> Path:
    return sessions_dir(root) / f"{safe_name(session)}.json"


def load(root: Path, session: str) -> SessionState:
    try:
        data: dict[str, Any] = json.loads(state_path(root, session).read_text(encoding="utf-8"))
        known = {k: v for k, v in data.items() if k in SessionState.__dataclass_fields__}
        return SessionState(**known)
    except (OSError, ValueError, TypeError):
        return SessionState(session)


def save(root: Path, state: SessionState) -> None:
    path = state_path(root, state.session)
    private_dirs(path.parent)
    text = json.dumps(asdict(state), ensure_ascii=False)
    write_atomic(path, text, durable=False, mode=0o600)


@contextlib.contextmanager
def session_lock(root: Path, session: str) -> Iterator[None]:
    """One hook at a time works on a session's state (Stop and SessionEnd can overlap)."""
    memkit_dir(root)  # made, or tightened, this user's alone
    folder = private_dirs(sessions_dir(root))
    fd = os.open(folder / f"{safe_name(session)}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def prune(root: Path, keep_days: float = KEEP_DAYS) -> None:
    """Remove the state of sessions not touched for `keep_days`."""
    folder = sessions_dir(root)
    cutoff = time.time() - keep_days * 86_400
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            with contextlib.suppress(OSError):
                if entry.stat().st_mtime < cutoff:
                    os.unlink(entry.path)  # noqa: PTH108
