"""The warm engine: one per repository, 0600 socket, reloads, idles out, leaves nothing."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import (
    atom_text,
    context,
    kill_index_builds,
    make_memory_repo,
    memkit,
    run_hook,
    start_engine,
    wait_for,
    write_atom,
)

KAFKA = atom_text(
    "kafka-offsets",
    title="Kafka offsets",
    body="- Always commit Kafka offsets after processing.",
    extra="triggers: [kafka]\n",
)


def test_engine_serves_hooks_reloads_and_idles_out(heartbeat_team: Path) -> None:
    sock = heartbeat_team / ".memkit/engine.sock"
    engine = start_engine(heartbeat_team, "--idle", "4")
    try:
        assert stat.S_IMODE(sock.stat().st_mode) == 0o600
        second = subprocess.run(
            [sys.executable, "-m", "memkit", "serve", "--idle", "4"],
            cwd=heartbeat_team,
            capture_output=True,
            timeout=30,
            check=False,
        )
        assert second.returncode == 0  # the lock: one engine per repository

        payload = {
            "session_id": "s",
            "cwd": str(heartbeat_team),
            "prompt": "websocket ping interval",
        }
        text = context(run_hook("user-prompt-submit", payload, heartbeat_team, engine=True))
        assert "ws-heartbeat-interval" in text
        assert "vector #" in text  # answered by the warm engine, which has the model loaded

        write_atom(
            heartbeat_team,
            "shared/kafka-offsets.md",
            KAFKA,
        )
        assert memkit("index", cwd=heartbeat_team).returncode == 0
        payload = {"session_id": "s2", "cwd": str(heartbeat_team), "prompt": "kafka offsets"}
        recalled = context(run_hook("user-prompt-submit", payload, heartbeat_team, engine=True))
        assert "kafka-offsets" in recalled  # new generation
    finally:
        engine.wait(timeout=30)  # idles out by itself
        engine.communicate()
    assert engine.returncode == 0
    assert not sock.exists()


def test_no_engine_the_hook_answers_and_starts_one(heartbeat_team: Path) -> None:
    payload = {"session_id": "s", "cwd": str(heartbeat_team), "prompt": "websocket ping"}
    out = run_hook("user-prompt-submit", payload, heartbeat_team, engine=True).stdout
    assert "ws-heartbeat-interval" in out  # answered in-process, BM25 and triggers
    sock = heartbeat_team / ".memkit/engine.sock"
    wait_for(sock.exists)
    # Stop it: a `memkit serve` started by a hook exits after its idle timeout by itself;
    # the test does not wait ten minutes.
    pid = int((heartbeat_team / ".memkit/engine.pid").read_text(encoding="utf-8"))
    stopped = memkit("serve", "--stop", cwd=heartbeat_team)
    assert stopped.stdout.startswith("memkit: engine stopped (pid "), stopped.stderr
    wait_for(lambda: not sock.exists())
    assert not (heartbeat_team / ".memkit/engine.pid").exists()
    with pytest.raises(ProcessLookupError):
        for _ in range(100):
            os.kill(pid, 0)  # gone, not a zombie of ours: it was started detached
            time.sleep(0.05)
    assert (
        memkit("serve", "--stop", cwd=heartbeat_team).stdout.strip()
        == "memkit: no engine was running"
    )


def test_engine_leaves_when_its_repository_goes(heartbeat_team: Path) -> None:
    engine = start_engine(heartbeat_team, "--idle", "600")
    try:
        import shutil

        # The engine may still be writing its first state (usage, a log line) as the socket
        # comes up: remove what it wrote meanwhile too, as a person's second `rm -rf` would.
        for _ in range(50):
            shutil.rmtree(heartbeat_team / ".memkit", ignore_errors=True)
            if not (heartbeat_team / ".memkit").exists():
                break
            time.sleep(0.1)
        code = engine.wait(timeout=15)
        assert code == 0, engine.communicate()[1].decode(errors="replace")[-2000:]
    finally:
        if engine.poll() is None:
            engine.terminate()
        engine.communicate()


def engine_indexes_a_new_atom(repo: Path, target: Path, *repos: Path) -> None:
    """With `repo`'s engine running, an atom written into `target` is recalled soon after."""
    engine = start_engine(repo, "--idle", "60", "--check-every", "0.5")
    try:
        prompts = iter(range(1000))

        def recalled() -> bool:
            payload = {"session_id": f"s{next(prompts)}", "cwd": str(repo), "prompt": "kafka"}
            answer = run_hook("user-prompt-submit", payload, repo, *repos, engine=True)
            return "kafka-offsets" in context(answer)

        assert not recalled()
        write_atom(target, "shared/kafka-offsets.md", KAFKA)
        wait_for(recalled)
    finally:
        memkit("serve", "--stop", cwd=repo)
        engine.wait(timeout=30)
        engine.communicate()
    assert engine.returncode == 0


def test_the_engine_indexes_an_atom_written_while_it_runs(heartbeat_team: Path) -> None:
    # No git hook fires on a plain edit or commit; the engine notices and refreshes.
    engine_indexes_a_new_atom(heartbeat_team, heartbeat_team)


def test_the_engine_keeps_every_repository_it_serves_current(
    heartbeat_team: Path, tmp_path: Path
) -> None:
    # A personal repository named next to the team's is served by the team's engine: an atom
    # written there is indexed too.
    personal = make_memory_repo(tmp_path / "mine")
    assert memkit("index", cwd=personal).returncode == 0
    engine_indexes_a_new_atom(heartbeat_team, personal, heartbeat_team, personal)


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def test_a_request_the_hook_gave_up_on_stops_burning_the_engine(heartbeat_team: Path) -> None:
    """Issue 40: a PostToolUse on a large atom the checks were slow on gave up at the hook's
    deadline while the engine went on checking it for minutes, every hook behind it waiting.
    The engine now stops a request at its budget (2.5 s; the hook waits 1.5 s)."""
    body = "- The staging password" + " " * 40_000 + "\n- It rotates monthly; see the vault.\n"
    big = write_atom(heartbeat_team, "shared/big-note.md", atom_text("big-note", body=body))
    engine = start_engine(heartbeat_team, "--idle", "60")
    try:
        payload = {
            "session_id": "s",
            "tool_name": "Write",
            "tool_input": {"file_path": str(big)},
            "tool_response": {},
        }
        run_hook(
            "post-tool-use",
            payload,
            heartbeat_team,
            heartbeat_team,
            engine=True,
            env={"MEMKIT_HOOK_DEADLINE": "4"},
        )
        before = _cpu_seconds(engine.pid)
        time.sleep(3)
        assert _cpu_seconds(engine.pid) - before < 1.0  # idle, not still checking
        prompt = {"session_id": "s", "prompt": "how often does the websocket heartbeat run"}
        start = time.monotonic()
        answer = run_hook("user-prompt-submit", prompt, heartbeat_team, heartbeat_team, engine=True)
        assert "ws-heartbeat" in context(answer, "UserPromptSubmit")
        assert time.monotonic() - start < 10
    finally:
        # The index builds the hooks started check the same atom, as slowly: not this test's
        # subject, and they must not outlive it.
        kill_index_builds(heartbeat_team)
        engine.terminate()
        engine.communicate(timeout=30)
