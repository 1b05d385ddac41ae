"""The hook protocol: JSON on stdin, documented JSON on stdout, and failing open.

Claude Code ignores a whole output whose `hookEventName` or types are wrong, erases the user's
prompt on exit 2 from UserPromptSubmit, and caps `additionalContext` at 10,000 characters. So
every handler runs inside `fail_open`: on any error it logs under `.memkit/logs/`, prints
nothing, and exits 0.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

from memkit.budget import OutOfTime
from memkit.claude.events import MAX_STDIN

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.recall.hooklog"}


MAX_CONTEXT = 10_000
CONTEXT_EVENTS = ("SessionStart", "SubagentStart", "UserPromptSubmit", "PreToolUse", "PostToolUse")


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
        text = cut_to_fit(text)
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


CUT_NOTE = "[memkit: more memory was cut to fit; ask `memkit search`]"
_FENCES = (("<memkit-memory>", "</memkit-memory>"), ("<memkit-index", "</memkit-index>"))


def cut_to_fit(text: str, limit: int = MAX_CONTEXT) -> str:
    """`text` cut at a line end to fit `limit` characters, with a note, and the fence the cut
    fell in closed: an open `<memkit-memory>` would make what follows in the session read as
    memory, and the fence check refuses it."""
    cut = text[: limit - len(CUT_NOTE) - 40].rsplit("\n", 1)[0]
    close = ""
    for opening, closing in _FENCES:
        if cut.rfind(opening) > cut.rfind(closing):
            close = closing
    return f"{cut}\n{CUT_NOTE}" + (f"\n{close}" if close else "")


def fail_open(
    event: str,
    handler: Callable[[dict[str, Any]], dict[str, Any] | None],
    stream: Any = None,
    out: Any = None,
    log_to: str | None = None,
) -> int:
    """Run a handler; whatever happens, print only valid output and return 0. Failures are
    logged in the repository `log_to` (the one the hook serves), else the payload's cwd's."""
    out = out or sys.stdout
    payload: dict[str, Any] = {}
    try:
        payload = read_payload(stream)
        result = handler(payload)
        if result:
            text = json.dumps(result, ensure_ascii=False)
            out.write(text)
            out.flush()
    except (SystemExit, OutOfTime):
        raise  # the engine being stopped, or a request past its budget: not a hook failing
    except BaseException:
        from memkit.recall.hooklog import log_error

        log_error(log_to or str(payload.get("cwd") or ""), event)
    return 0
