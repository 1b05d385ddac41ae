"""hooks.log: what a user would want to know went wrong when nothing may be printed (a hook,
the engine, the MCP server, a capture worker). `memkit doctor` points there."""

from __future__ import annotations

import os
import time
import traceback
from pathlib import Path

from memkit.files import memkit_dir, private_dirs
from memkit.logs import append, user_log_dir
from memkit.recall.trust import private_folder, trusted_root


def log_dir(cwd: str | None) -> Path | None:
    """The repository's `.memkit/logs/` when this user may trust it, else this user's own log
    folder (never one another user can read)."""
    found = trusted_root([], cwd or os.getcwd())  # noqa: PTH109
    if found is not None and private_folder(found):
        return memkit_dir(Path(found)) / "logs"
    return user_log_dir()


def log_line(cwd: str | None, event: str, message: str, *, mine: bool = False) -> None:
    """One line in hooks.log: something a user would want to know went wrong (`memkit doctor`
    points there), when nothing is printed into the session. `mine`: in this user's own log
    folder, not a repository's (a repository that was refused)."""
    try:
        folder = user_log_dir() if mine else log_dir(cwd)
        if folder is None:
            return
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        append(private_dirs(folder) / "hooks.log", f"{stamp} {event}: {message}\n")
    except OSError:
        pass  # nowhere to log: still never disturb the session


def log_error(cwd: str | None, event: str) -> None:
    """Append the exception being handled to the repository's `.memkit/logs/hooks.log`; an
    exception's message may quote the prompt: private parts and secrets are masked."""
    log_line(cwd, event, "failed, answered nothing\n" + traceback.format_exc())
