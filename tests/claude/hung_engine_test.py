"""A hung engine and many hooks at once: every hook inside its deadline, exit 0 (issue 21)."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from memkit.recall.client import HUNG_SECONDS
from tests.helpers import (
    atom_text,
    commit_and_index,
    make_memory_repo,
    memkit,
    start_engine,
    write_atom,
)

HOOK = str(Path(sys.executable).parent / "memkit-hook")


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Path]:
    repo = make_memory_repo(tmp_path / "team", hooks=False)
    write_atom(
        repo,
        "shared/ws-heartbeat.md",
        atom_text(
            "ws-heartbeat",
            title="WebSocket heartbeat",
            body="- Send a WebSocket ping every 30 s.",
            extra="triggers: [websocket]\n",
        ),
    )
    commit_and_index(repo)
    yield repo
    # The hooks start a warm engine of their own: stopped here, not at its idle timeout.
    memkit("serve", "--stop", cwd=repo)


def many(
    repo: Path, n: int, event: str, payload: Mapping[str, object], **env: str
) -> list[tuple[int, str, float]]:
    full_env = {**os.environ, "MEMKIT_NO_ENGINE": "0", **env}
    started = time.monotonic()
    procs = []
    for i in range(n):
        # The payload from a file, as a pipe Claude Code has already filled: a hook that
        # leaves at its deadline before reading it (a loaded machine) breaks no pipe.
        given = repo.parent / f"payload-{event}-{i}.json"
        given.write_text(json.dumps({"cwd": str(repo), "session_id": f"s{i}", **payload}))
        with given.open("rb") as stdin:
            procs.append(
                subprocess.Popen(
                    [HOOK, event, f"--repo={repo}"],
                    stdin=stdin,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    env=full_env,
                    text=True,
                )
            )
    out = []
    for proc in procs:
        assert proc.stdout is not None and proc.stderr is not None
        stdout = proc.stdout.read()
        proc.stderr.read()
        proc.wait(timeout=120)
        proc.stdout.close()
        proc.stderr.close()
        out.append((proc.returncode, stdout, time.monotonic() - started))
    return out


def test_a_stopped_engine_is_not_waited_for_by_thirty_hooks(repo: Path) -> None:
    engine = start_engine(repo, "--idle", "120", "--check-every", "0")
    try:
        pid = engine.pid  # the engine started here (its pid file names it by now)
        os.kill(pid, signal.SIGSTOP)
        started = time.monotonic()
        prompts = many(repo, 30, "user-prompt-submit", {"prompt": "websocket ping interval"})
        ends = many(repo, 20, "session-end", {"reason": "other"})
        took = time.monotonic() - started
        doctor = memkit("doctor", cwd=repo).stdout
    finally:
        engine.send_signal(signal.SIGCONT)
        engine.terminate()
        engine.communicate(timeout=30)
    assert all(code == 0 for code, _, _ in prompts + ends)
    answered = [out for _, out, _ in prompts if out]
    assert answered and all("ws-heartbeat" in out for out in answered)
    log = (repo / ".memkit/logs/hooks.log").read_text(encoding="utf-8")
    # Found by the first hook, then marked: the others say nothing, and none waits for it.
    # The mark lasts HUNG_SECONDS; on a loaded machine fifty hooks can take longer than that,
    # and the first hook after it finds the engine still stopped says so once more.
    assert 1 <= log.count("the engine is stopped") <= 1 + int(took // HUNG_SECONDS)
    assert "did not answer in time" not in log
    assert f"FAIL warm engine: pid {pid} is stopped" in doctor
    assert f"kill -CONT {pid}; memkit serve --stop" in doctor


def test_hooks_queue_for_a_slot_and_leave_at_their_deadline(repo: Path) -> None:
    held = []
    for n in range(max(2, os.cpu_count() or 2)):
        fd = os.open(repo / f".memkit/hook-slot-{n}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        held.append(fd)
    payload = {"prompt": "websocket ping interval"}
    try:
        # Long enough for a loaded machine to start the hook and find the repository (its
        # log is known then); every slot stays busy until the deadline whatever the load.
        (waited,) = many(repo, 1, "user-prompt-submit", payload, MEMKIT_HOOK_DEADLINE="8")
    finally:
        for fd in held:
            os.close(fd)
    assert waited[:2] == (0, "")  # every slot busy: it waited, then left with nothing
    log = (repo / ".memkit/logs/hooks.log").read_text(encoding="utf-8")
    assert "deadline expired" in log
    (free,) = many(repo, 1, "user-prompt-submit", payload, MEMKIT_HOOK_DEADLINE="60")
    assert free[0] == 0 and "ws-heartbeat" in free[1]
