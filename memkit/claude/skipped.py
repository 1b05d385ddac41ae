"""Hooks that left with nothing: never silently.

A hook past its deadline leaves at once and prints nothing (`memkit.claude.main._expired`):
Claude Code waits for its hooks, and a late prompt is worse than no memory. But the person
must be able to tell memory is missing. So the hook leaves a mark, `.memkit/skipped/<session>`
(what it was doing when time ran out), and a line in `.memkit/skipped/ledger`; the session's
next answer (its next prompt, or a session start) says so in one line and removes the mark, and
`memkit doctor` counts the ledger's lines of the last week (`check_skipped`).

The hook process writes them (`memkit.claude.main._mark_skipped`, the standard library only,
in a signal handler); reading is here.
"""

from __future__ import annotations

import contextlib
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

from memkit.files import write_atomic

if TYPE_CHECKING:
    from memkit.checkup import Check

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.checkup"}


FOLDER = "skipped"
LEDGER = "ledger"
ANY = "unknown-session"  # a hook whose payload named no session
WEEK = 7 * 86_400
MAX_LEDGER = 64_000  # bytes: older lines are dropped when doctor reads it
_SAFE = re.compile(r"[^A-Za-z0-9_-]")
LABEL = {
    "user-prompt-submit": "prompt",
    "session-start": "session start",
    "subagent-start": "subagent start",
    "pre-tool-use": "file read or edit",
    "post-tool-use": "file written",
    "pre-compact": "compaction",
    "stop": "end of a turn",
    "session-end": "end of the session",
}


def mark_name(session: str) -> str:
    return _SAFE.sub("_", session)[:100] or ANY


def take(root: Path, session: str) -> str:
    """The line the next answer gives when an earlier hook of this session (or one that named
    no session) left with nothing; "" when none did. The mark is consumed: said once."""
    folder = root / ".memkit" / FOLDER
    for name in dict.fromkeys((mark_name(session), ANY)):
        path = folder / name
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
            path.unlink()
        except OSError:
            continue
        event, _, rest = text.strip().partition("\t")
        reason = rest.partition("\t")[0] or "its deadline expired"
        what = LABEL.get(event, "hook")
        return (
            f"memkit: memory was skipped for an earlier {what} of this session ({reason}); "
            "this answer has it again. `memkit doctor` shows how often this happens."
        )
    return ""


def recent(root: Path, now: float | None = None) -> list[tuple[float, str, str]]:
    """(when, event, reason) of the hooks that left with nothing in the last week."""
    path = root / ".memkit" / FOLDER / LEDGER
    try:
        raw = path.read_bytes()
    except OSError:
        return []
    now = now or time.time()
    out = []
    for line in raw[-MAX_LEDGER:].decode("utf-8", "replace").splitlines():
        when, _, rest = line.partition("\t")
        event, _, reason = rest.partition("\t")
        try:
            stamp = float(when)
        except ValueError:
            continue
        if now - stamp <= WEEK:
            out.append((stamp, event, reason))
    if len(raw) > MAX_LEDGER:
        _trim(path, raw[-MAX_LEDGER:])
    return out


def _trim(path: Path, keep: bytes) -> None:
    start = keep.find(b"\n") + 1
    with contextlib.suppress(OSError):
        write_atomic(path, keep[start:], durable=False, mode=0o600)


def check_skipped(root: Path) -> Check:
    """`memkit doctor`: hooks that answered nothing in the last week, the last one's reason."""
    from memkit.checkup import OK, WARN, Check

    found = recent(root)
    if not found:
        return Check(OK, "hook deadlines", "no hook left without an answer in the last 7 days")
    when, event, reason = max(found)
    last = time.strftime("%Y-%m-%d %H:%M", time.localtime(when))
    return Check(
        WARN,
        "hook deadlines",
        f"{len(found)} hook(s) answered nothing in the last 7 days, memory skipped (last: "
        f"{last}, {LABEL.get(event, event)}: {reason})",
        "keep the warm engine running (`memkit serve`; hooks start it); a loaded machine "
        "can raise MEMKIT_HOOK_DEADLINE; .memkit/logs/hooks.log has each one",
    )
