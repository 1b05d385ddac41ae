"""PreCompact forgets what the session was given; Stop and SessionEnd note how it ended. All
three run capture's transcript pass (and SessionEnd its episodic summary)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from memkit.capture import state as states
from memkit.capture.hooks import on_transcript
from memkit.recall.readers import Readers, find_repos

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.lifecycle.evidence"}


def pre_compact(
    payload: dict[str, Any], repos: Sequence[str], readers: Readers
) -> dict[str, Any] | None:
    roots = find_repos(payload, repos)
    # Capture first: it keeps what the session was given before the usage log forgets it.
    on_transcript(payload, roots, "pre-compact", warm=readers.warm)
    for root in roots:
        with readers.usage_log(root) as usage:
            usage.forget_session(str(payload.get("session_id") or ""))
    return None


def session_end(event: str) -> Callable[[dict[str, Any], Sequence[str], Readers], None]:
    def handler(payload: dict[str, Any], repos: Sequence[str], readers: Readers) -> None:
        roots = find_repos(payload, repos)
        for root in roots:
            with readers.usage_log(root) as usage:
                detail = str(payload.get("reason") or payload.get("stop_hook_active") or "")
                usage.session_event(str(payload.get("session_id") or ""), event, detail)
        # Capture: the transcript pass, the summary.
        on_transcript(payload, roots, event, warm=readers.warm)

    return handler


_stopped = session_end("stop")
end = session_end("session-end")


def stop(payload: dict[str, Any], repos: Sequence[str], readers: Readers) -> None:
    """The turn is over: note how it ended, and which of the atoms it was given its answer
    drew on or contradicts (`memkit.lifecycle.evidence`)."""
    _stopped(payload, repos, readers)
    answer = str(payload.get("last_assistant_message") or "")
    if answer.strip():
        from memkit.lifecycle.evidence import settle_turn

        session = str(payload.get("session_id") or "")
        for root in find_repos(payload, repos):
            # The prompt, as the transcript pass just read it: words the answer only repeats
            # from it do not show an atom was used.
            prompt = states.load(root, session).last_prompt if session else ""
            settle_turn(root, session, answer, readers, prompt)
