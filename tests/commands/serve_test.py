"""`memkit serve --stop` says what happened to the engine: none running, stopped, or killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.helpers import memkit


def start_engine(repo: Path) -> subprocess.Popen[bytes]:
    engine = subprocess.Popen(
        [sys.executable, "-m", "memkit", "serve"],
        cwd=repo,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not (repo / ".memkit/engine.pid").exists():
        assert time.monotonic() < deadline, "the engine did not start"
        time.sleep(0.1)
    return engine


def test_serve_stop_tells_the_truth(heartbeat_team: Path) -> None:
    assert memkit("serve", "--stop", cwd=heartbeat_team).stdout == "memkit: no engine was running\n"
    engine = start_engine(heartbeat_team)
    stopped = memkit("serve", "--stop", cwd=heartbeat_team)
    assert stopped.stdout == f"memkit: engine stopped (pid {engine.pid})\n"
    assert engine.wait(timeout=5) == 0  # it had exited when --stop said so

    # A wedged engine (stopped, as if stuck): SIGTERM does nothing, so it is killed, and
    # --stop says so instead of claiming a clean stop.
    engine = start_engine(heartbeat_team)
    os.kill(engine.pid, signal.SIGSTOP)
    try:
        wedged = memkit("serve", "--stop", "--wait", "1", cwd=heartbeat_team)
        assert wedged.returncode == 0, wedged.stderr
        assert wedged.stdout == (
            f"memkit: the engine (pid {engine.pid}) did not exit within 1 s; killed it\n"
        )
        assert engine.wait(timeout=5) == -signal.SIGKILL
        assert not (heartbeat_team / ".memkit/engine.pid").exists()
        assert not (heartbeat_team / ".memkit/engine.sock").exists()
    finally:
        if engine.poll() is None:
            engine.kill()
            engine.wait()
