"""Where memkit writes its logs, and what never goes into them.

Hook failures go to the repository's `.memkit/logs/hooks.log`; crashes of the CLI, and hook
failures outside any repository, to a folder of this user's own: `$MEMKIT_LOG_DIR`, else
`$XDG_STATE_HOME/memkit/logs` (`~/.local/state/memkit/logs`). Folders are made 0700 and files
0600: a log may hold paths, argv and tracebacks, and on a shared machine `/tmp` is everyone's.
A folder that another user owns or can write to is not used. Before anything is written,
`<private>` blocks are cut and secret values redacted.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from memkit.files import private_dirs
from memkit.safety.private import strip_private
from memkit.safety.secrets import redact_secrets

MAX_LOG = 1_000_000  # bytes; one older file is kept beside it


def mask(text: str) -> str:
    return redact_secrets(strip_private(text, "<private>…</private>"))


def usable(folder: Path) -> bool:
    """Made or tightened to 0700 here; False when it is not this user's alone."""
    try:
        private_dirs(folder)
        st = folder.lstat()
        if st.st_uid != os.geteuid() or not folder.is_dir():
            return False
        if st.st_mode & 0o077:
            folder.chmod(0o700)
    except OSError:
        return False
    return True


def user_log_dir() -> Path | None:
    """This user's log folder, or None when no private one can be had."""
    configured = os.environ.get("MEMKIT_LOG_DIR")
    if configured:
        candidates = [Path(configured)]
    else:
        state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
        candidates = [
            Path(state) / "memkit" / "logs",
            Path(tempfile.gettempdir()) / f"memkit-logs-{os.geteuid()}",
        ]
    return next((c for c in candidates if usable(c)), None)


def append(path: Path, text: str) -> None:
    """Append `text`, masked, to a 0600 log file; rotated past MAX_LOG. OSError goes up."""
    try:
        if path.stat().st_size > MAX_LOG:
            path.replace(path.with_name(path.name + ".1"))
    except FileNotFoundError:
        pass
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as fh:
        if os.fstat(fd).st_mode & 0o077:
            os.fchmod(fd, 0o600)  # made by an older memkit, readable by others
        fh.write(mask(text))
