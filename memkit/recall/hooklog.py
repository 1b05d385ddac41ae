"""hooks.log: what a user would want to know went wrong when nothing may be printed (a hook,
the engine, the MCP server, a capture worker). `memkit doctor` points there."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path


def log_dir(cwd: str | None) -> Path | None:
    """The repository's `.memkit/logs/` when this user may trust it, else this user's own log
    folder (never one another user can read)."""
    import os  # noqa: PLC0415  (only when something went wrong)
    from pathlib import Path  # noqa: PLC0415

    from memkit.files import memkit_dir  # noqa: PLC0415
    from memkit.logs import user_log_dir  # noqa: PLC0415
    from memkit.recall.trust import private_folder, trusted_root  # noqa: PLC0415

    found = trusted_root([], cwd or os.getcwd())  # noqa: PTH109
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
