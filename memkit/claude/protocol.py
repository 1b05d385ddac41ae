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
from typing import TYPE_CHECKING, Any

from memkit.claude.events import MAX_STDIN

if TYPE_CHECKING:
    from pathlib import Path

MAX_CONTEXT = 10_000
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


def log_dir(cwd: str | None) -> Path | None:
    """The repository's `.memkit/logs/` when this user may trust it, else this user's own log
    folder (never one another user can read)."""
    import os  # noqa: PLC0415  (only when something went wrong)
    from pathlib import Path  # noqa: PLC0415

    from memkit.claude.trust import find_root, private_folder  # noqa: PLC0415
    from memkit.files import memkit_dir  # noqa: PLC0415
    from memkit.logs import user_log_dir  # noqa: PLC0415

    found = find_root([], cwd or os.getcwd())  # noqa: PTH109
    if found is not None and private_folder(found):
        return memkit_dir(Path(found)) / "logs"
    return user_log_dir()


def log_line(cwd: str | None, event: str, message: str, *, mine: bool = False) -> None:
    """One line in hooks.log: something a user would want to know went wrong (`memkit doctor`
    points there), when nothing is printed into the session. `mine`: in this user's own log
    folder, not a repository's (a repository that was refused)."""
    import time  # noqa: PLC0415  (only when something went wrong)

    from memkit.files import private_dirs  # noqa: PLC0415
    from memkit.logs import append  # noqa: PLC0415

    try:
        if mine:
            from memkit.logs import user_log_dir  # noqa: PLC0415

            folder = user_log_dir()
        else:
            folder = log_dir(cwd)
        if folder is None:
            return
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        append(private_dirs(folder) / "hooks.log", f"{stamp} {event}: {message}\n")
    except OSError:
        pass  # nowhere to log: still never disturb the session


def log_error(cwd: str | None, event: str) -> None:
    """Append the exception being handled to the repository's `.memkit/logs/hooks.log`; an
    exception's message may quote the prompt: private parts and secrets are masked."""
    import traceback  # noqa: PLC0415  (only when something went wrong)

    log_line(cwd, event, "failed, answered nothing\n" + traceback.format_exc())


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
    except SystemExit:
        raise  # the engine being stopped, not a hook failing
    except BaseException:
        log_error(log_to or str(payload.get("cwd") or ""), event)
    return 0
