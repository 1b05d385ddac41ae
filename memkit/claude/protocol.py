"""The hook protocol: JSON on stdin, documented JSON on stdout, and failing open.

Claude Code ignores a whole output whose `hookEventName` or types are wrong, erases the user's
prompt on exit 2 from UserPromptSubmit, and caps `additionalContext` at 10,000 characters. So
every handler runs inside `fail_open`: on any error it logs under `.memkit/logs/`, prints
nothing, and exits 0.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memkit.claude.events import MAX_STDIN

if TYPE_CHECKING:
    from pathlib import Path

MAX_CONTEXT = 10_000
MAX_LOG = 1_000_000
_PRIVATE = re.compile(r"<private\b[^>]*>.*?(?:</private\s*>|\Z)", re.S | re.I)
CONTEXT_EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse")


def read_payload(stream: Any = None) -> dict[str, Any]:
    stream = stream or sys.stdin
    raw = stream.read(MAX_STDIN + 1)
    if len(raw) > MAX_STDIN:
        raise ValueError(f"hook input larger than {MAX_STDIN} bytes; ignored")
    data = json.loads(raw) if raw.strip() else {}
    if not isinstance(data, dict):
        raise ValueError("hook input is not a JSON object")
    return data


def context_output(event: str, text: str) -> dict[str, Any] | None:
    if not text or event not in CONTEXT_EVENTS:
        return None
    if len(text) > MAX_CONTEXT:
        cut = text[: MAX_CONTEXT - 80].rsplit("\n", 1)[0]
        text = cut + "\n[memkit: more memory was cut to fit; ask `memkit search`]"
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def log_dir(cwd: str | None) -> Path:
    import tempfile  # noqa: PLC0415  (only when something went wrong)
    from pathlib import Path  # noqa: PLC0415

    from memkit.repo import nearest_repo  # noqa: PLC0415

    found = nearest_repo(Path(cwd) if cwd else Path.cwd())
    if found is not None:
        return found / ".memkit" / "logs"
    return Path(tempfile.gettempdir()) / "memkit-logs"


def log_error(cwd: str | None, event: str) -> None:
    """Append the exception being handled to the repository's `.memkit/logs/hooks.log`."""
    import time  # noqa: PLC0415  (only when something went wrong)
    import traceback  # noqa: PLC0415

    try:
        folder = log_dir(cwd)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "hooks.log"
        if path.is_file() and path.stat().st_size > MAX_LOG:
            path.replace(path.with_name("hooks.log.1"))  # one old log kept, never unbounded
        # An exception's message may quote the prompt: its private parts stay out of the log.
        text = _PRIVATE.sub("<private>…</private>", traceback.format_exc())
        with path.open("a", encoding="utf-8") as fh:
            fh.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {event}\n{text}\n")
    except OSError:
        pass  # nowhere to log: still never disturb the session


def fail_open(
    event: str,
    handler: Callable[[dict[str, Any]], dict[str, Any] | None],
    stream: Any = None,
    out: Any = None,
) -> int:
    """Run a handler; whatever happens, print only valid output and return 0."""
    out = out or sys.stdout
    payload: dict[str, Any] = {}
    try:
        payload = read_payload(stream)
        result = handler(payload)
        if result:
            text = json.dumps(result, ensure_ascii=False)
            out.write(text)
            out.flush()
    except SystemExit:
        raise  # the engine being stopped, not a hook failing
    except BaseException:
        log_error(str(payload.get("cwd") or ""), event)
    return 0
