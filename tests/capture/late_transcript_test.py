"""A Stop hook that runs before Claude Code has written the turn it ends (issue 43).

Claude Code appends its transcript from a queue it drains ~100 ms later, and starts the Stop
hooks meanwhile: the hook of a session's first turn, quick enough (the warm engine's, or any
on a loaded machine), found no transcript file at all and checkpointed no summary, so a
session that never reached SessionEnd left none. These tests write the transcript while the
Stop handler runs, as the CLI does, at a moment they choose; tests/claude/sessions_test.py
runs the real CLI."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from memkit.capture import hooks
from memkit.capture import state as states
from memkit.capture.hooks import on_transcript

PROMPT = "Why does the Stripe invoice.paid webhook charge customers twice?"
# Quotes, a non-ASCII dash and a second line: the transcript spells them as JSON.stringify does.
ANSWER = (
    "I read the handler.\n"
    'The root cause is the retry: "invoice.paid" is delivered again \u2014 dedupe on event.id.'
)


def entry(kind: str, content: Any, **extra: Any) -> str:
    """One transcript line as Claude Code writes it (UTF-8, not \\u-escaped)."""
    body = {"type": kind, "message": {"role": kind, "content": content}, **extra}
    return json.dumps(body, ensure_ascii=False) + "\n"


def write_turn_later(transcript: Path, seconds: float) -> threading.Timer:
    """The CLI's queue drained `seconds` from now: the file created, with the whole turn."""
    turn = entry("user", PROMPT, promptId="p1") + entry(
        "assistant", [{"type": "text", "text": "I read the handler."}]
    )
    turn += entry("assistant", [{"type": "text", "text": ANSWER.split("\n", 1)[1]}])

    def drain() -> None:
        with transcript.open("a", encoding="utf-8") as fh:
            fh.write(turn)

    timer = threading.Timer(seconds, drain)
    timer.start()
    return timer


def stop_payload(root: Path, transcript: Path, session: str) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": str(transcript),
        "cwd": str(root),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "last_assistant_message": ANSWER,
    }


def summaries(root: Path) -> list[Path]:
    return sorted((root / ".memkit/episodic").glob("session-*.md"))


@pytest.mark.parametrize("warm", [False, True], ids=["hook-process", "warm-engine"])
def test_a_stop_before_the_transcript_is_written_waits_for_its_turn(
    heartbeat_team: Path, tmp_path: Path, *, warm: bool
) -> None:
    """The file appears a moment after the Stop handler starts: it waits for the answer, and
    the summary of the session (killed right after: no SessionEnd) is there."""
    transcript = tmp_path / "late.jsonl"
    drained = write_turn_later(transcript, 0.3 if not warm else 0.1)
    try:
        on_transcript(
            stop_payload(heartbeat_team, transcript, "late-1"), [heartbeat_team], "stop", warm=warm
        )
    finally:
        drained.join()
    (summary,) = summaries(heartbeat_team)
    assert PROMPT in summary.read_text(encoding="utf-8").split("## Asked", 1)[1]
    state = states.load(heartbeat_team, "late-1")
    assert state.offset == transcript.stat().st_size and not state.unwritten
    assert "dedupe on event.id" in json.dumps(state.heard)  # the answer was read too


def test_a_transcript_that_never_comes_is_waited_for_once(
    heartbeat_team: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No transcript (Claude Code keeps none, or spells the answer another way): the first
    Stop waits in vain, the session's later Stops do not wait at all."""
    transcript = tmp_path / "never.jsonl"
    payload = stop_payload(heartbeat_team, transcript, "never-1")
    monkeypatch.setattr(hooks, "TURN_WAIT", 0.2)
    on_transcript(payload, [heartbeat_team], "stop", warm=False)
    assert states.load(heartbeat_team, "never-1").unwritten
    monkeypatch.setattr(hooks, "TURN_WAIT", 120.0)  # it would hold the test two minutes
    started = time.monotonic()
    on_transcript(payload, [heartbeat_team], "stop", warm=False)
    assert time.monotonic() - started < 60
    assert not summaries(heartbeat_team)  # nothing read: nothing to tell, as before
