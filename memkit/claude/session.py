"""PreCompact forgets what the session was given; Stop and SessionEnd note how it ended."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from memkit.claude import repos as _repos
from memkit.claude.repos import find_repos
from memkit.claude.usage import usage_log


def pre_compact(payload: dict[str, Any], repos: Sequence[str]) -> dict[str, Any] | None:
    for root in find_repos(payload, repos):
        with usage_log(root, keep=_repos.WARM) as usage:
            usage.forget_session(str(payload.get("session_id") or ""))
    return None


def session_end(event: str) -> Callable[[dict[str, Any], Sequence[str]], None]:
    def handler(payload: dict[str, Any], repos: Sequence[str]) -> None:
        for root in find_repos(payload, repos):
            with usage_log(root, keep=_repos.WARM) as usage:
                detail = str(payload.get("reason") or payload.get("stop_hook_active") or "")
                usage.session_event(str(payload.get("session_id") or ""), event, detail)

    return handler


_stopped = session_end("stop")
end = session_end("session-end")


def stop(payload: dict[str, Any], repos: Sequence[str]) -> None:
    """The turn is over: note how it ended, and which of the atoms it was given its answer
    contradicts (`memkit.lifecycle.evidence`)."""
    _stopped(payload, repos)
    answer = str(payload.get("last_assistant_message") or "")
    if answer.strip():
        from memkit.lifecycle.evidence import settle_turn  # noqa: PLC0415

        for root in find_repos(payload, repos):
            settle_turn(root, str(payload.get("session_id") or ""), answer)
