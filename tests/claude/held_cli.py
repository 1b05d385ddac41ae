"""`python held_cli.py CLI_PID COMMAND...`: a hook's command, run while Claude Code is held still.

The shell that runs it has stopped the CLI (SIGSTOP, as a loaded machine may leave it
unscheduled: its transcript queue not drained) as soon as the CLI handed it the hook's input.
COMMAND runs with that input; the CLI goes on (SIGCONT) once COMMAND has exited, or has held
its session's capture lock (`.memkit/capture/sessions/*.lock`, where the transcript is read)
for HOLD seconds: by then it has looked at the transcript."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

HOLD = 0.5


def holds_session_lock(pid: int) -> bool:
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False
    for fd in fds:
        try:
            target = str(fd.readlink())
        except OSError:
            continue
        if "/.memkit/capture/sessions/" in target and target.endswith(".lock"):
            return True
    return False


def main(argv: list[str]) -> int:
    cli, command = int(argv[0]), argv[1:]
    try:
        hook = subprocess.Popen(command)  # the hook's input is this process's
        since = 0.0
        while hook.poll() is None:
            if holds_session_lock(hook.pid):
                since = since or time.monotonic()
                if time.monotonic() - since >= HOLD:
                    break
            time.sleep(0.01)
    finally:
        os.kill(cli, signal.SIGCONT)
    return hook.wait()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
