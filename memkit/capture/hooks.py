"""What capture does in each Claude Code hook, cold or in the warm engine.

- UserPromptSubmit (`on_prompt`): L0 on the prompt, a candidate when it scores; on a session's
  first prompt, the asking person's last summary of this project, after the team's atoms.
  Well under a millisecond for a prompt that states nothing.
- Stop, PreCompact, SessionEnd (`on_transcript`): the transcript read where the last hook left
  off, bounded in time; PreCompact also keeps the atoms the session was given (the usage log
  forgets them at compaction); SessionEnd keeps what the last answer stated (nobody disputed
  it). Each of them (re)writes the session's episodic summary under `.memkit/episodic/`: a
  session that never reaches SessionEnd still leaves one. When the model levels
  or `write_personal` have work, a worker process does it, detached from the session.

Every entry point fails open: an error is logged in `.memkit/logs/hooks.log` and the hook goes
on (recall is never lost to capture).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Any

from memkit.capture import queue
from memkit.capture import state as states
from memkit.capture.queue import (
    Proposal,
    candidate_id,
    count,
    digest,
    offer,
    offer_many,
    pending_count,
)
from memkit.capture.settings import CaptureSettings, load
from memkit.capture.state import SessionState
from memkit.recall.usage import usage_log

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {
    "memkit.capture.detect",
    "memkit.capture.episodic",
    "memkit.capture.transcript",
    "memkit.recall.hooklog",
}


# The settings, the queue, the session state and the usage log come with this module (light,
# and every hook with capture on reaches them); detection, the transcript pass and summaries
# only when a hook needs them: a hook process pays for every module it loads before it
# answers (tests/lazy_imports_test.py records what each hook loads).

# Seconds the transcript pass may take: SessionEnd hooks are stopped by Claude Code after
# 1.5 s, and the warm engine answers other sessions' hooks one at a time.
PASS_SECONDS = {"stop": 1.0, "pre-compact": 1.0, "session-end": 0.3}
WARM_PASS_SECONDS = 0.3
# Seconds a Stop hook waits for the turn it ends to reach the transcript: Claude Code appends
# its transcript from a queue drained ~100 ms later, and runs the Stop hooks meanwhile, so a
# quick hook (the warm engine's, or any on a loaded machine) can find the turn, even the whole
# transcript file, not written yet. Waited in vain once, a session is not waited for again (a
# transcript Claude Code does not keep, an answer it spells another way).
TURN_WAIT = 2.0
WARM_TURN_WAIT = 0.5  # the engine answers other sessions' hooks one at a time
POLL_SECONDS = 0.02


def _log(root: Path, what: str) -> None:
    from memkit.recall.hooklog import log_error

    log_error(str(root), f"capture: {what}")


def _project(payload: dict[str, Any]) -> str:
    return str(payload.get("cwd") or os.environ.get("CLAUDE_PROJECT_DIR") or "")


def prompt_key(text: str) -> str:
    return digest(text, 12)


def proposals_of(text: str, lower: float) -> list[Proposal]:
    """What L0 proposes for `text`: one proposal per kind of statement in it (a correction
    and a preference in one prompt are two), [] when it shows no signal at all."""
    from memkit.capture.detect import detect_all

    return [
        Proposal(
            statement=found.statement,
            kind=found.kind,
            type=found.type,
            scope=found.scope,
            score=found.score,
            why=found.why,
            triggers=found.triggers,
        )
        for found in detect_all(text[: queue.MAX_TEXT], floor=lower)
    ]


def _waiting(outcome: str, proposal: Proposal) -> str:
    """The candidate's id when it waits in the queue after the offer, else ""."""
    return candidate_id(proposal.statement) if outcome in ("queued", "seen") else ""


def on_prompt(
    payload: dict[str, Any],
    roots: Sequence[Path],
    prompt: str,
    items: list[Any],
    *,
    judge: Callable[[str], float | None] | None = None,
    given: AbstractSet[str] = frozenset(),
) -> list[Any]:
    """Capture for one prompt (already free of `<private>` text); returns `items` with, after
    them, the asker's summary of an earlier session that the prompt is about (`judge`, see
    `memkit.capture.episodic.relevant_summary`), once a session (`given`)."""
    if not roots:
        return items
    root = roots[0]
    session = str(payload.get("session_id") or "")
    try:
        settings = load(root)
        if not settings.enabled or not session:
            return items

        waiting = []
        for proposal in proposals_of(prompt, settings.lower):
            key = str(payload.get("prompt_id") or prompt_key(prompt))
            source = {"session": session, "event": "prompt", "prompt": key}
            waiting.append(_waiting(offer(root, proposal, source, settings.lower), proposal))
        if any(waiting):
            with states.session_lock(root, session):
                state = states.load(root, session)
                state.project = state.project or _project(payload)
                state.started = state.started or states.now()
                for cid in waiting:
                    state.note("candidates", cid)
                states.save(root, state)
        if judge is not None and settings.episodic and _has_summaries(root):
            from memkit.capture.episodic import relevant_summary

            taken = {*given, *(getattr(i, "id", "") for i in items)}
            earlier = relevant_summary(root, session, _project(payload), judge, taken)
            if earlier is not None:
                return [*items, earlier]  # after the team's atoms: it never outranks them
    except Exception:  # capture must never cost the prompt its memory
        _log(root, "user-prompt-submit")
    return items


def _has_summaries(root: Path) -> bool:
    try:
        with os.scandir(root / ".memkit" / "episodic") as entries:
            return any(e.name.endswith(".md") for e in entries)
    except OSError:
        return False


def _transcript(payload: dict[str, Any]) -> Path | None:
    """The session's transcript, when it is a regular file of this user's."""
    raw = str(payload.get("transcript_path") or "")
    if not raw:
        return None
    path = Path(raw)
    try:
        st = path.stat()
    except OSError:
        return None
    if not path.is_file() or st.st_uid != os.geteuid():
        return None
    return path


def on_transcript(
    payload: dict[str, Any], roots: Sequence[Path], event: str, *, warm: bool
) -> None:
    """The transcript pass of Stop, PreCompact or SessionEnd; never raises. `warm`: in a
    long-lived process, which can afford only a short pass per request."""
    if not roots:
        return
    root = roots[0]
    session = str(payload.get("session_id") or "")
    try:
        settings = load(root)
        if not settings.enabled or not session:
            return

        seconds = WARM_PASS_SECONDS if warm else PASS_SECONDS.get(event, 1.0)
        with states.session_lock(root, session):
            state = states.load(root, session)
            state.project = state.project or _project(payload)
            state.started = state.started or states.now()
            if event == "stop":
                _await_turn(payload, state, WARM_TURN_WAIT if warm else TURN_WAIT)
            deadline = time.monotonic() + seconds
            ending = event == "session-end"
            _read_transcript(root, settings, state, _transcript(payload), deadline, ending=ending)
            if event in ("pre-compact", "session-end"):
                _keep_given(root, state)
            # Checkpointed at every Stop and PreCompact too (issue 43): a session killed, crashed
            # or cut off before its SessionEnd (1.5 s for all its hooks) keeps what it did.
            if settings.episodic and _worth_a_summary(state):
                from memkit.capture.episodic import write_summary

                write_summary(root, state, settings.expires_days)
            states.save(root, state)
        if event == "session-end":
            from memkit.capture import episodic

            states.prune(root)
            episodic.prune(root)
        if event in ("stop", "session-end") and worker_needed(root, settings):
            start_worker(root)
    except Exception:  # a hook never breaks the session
        _log(root, event)


def _await_turn(payload: dict[str, Any], state: SessionState, seconds: float) -> None:
    """Until the transcript holds the answer the Stop hook's payload ends the turn with, for
    `seconds` at most (none when the transcript already does, the usual case)."""
    from memkit.capture.transcript import answer_mark, holds

    mark = answer_mark(str(payload.get("last_assistant_message") or ""))
    if not mark or state.unwritten or not payload.get("transcript_path"):
        return
    until = time.monotonic() + seconds
    seen = -1  # the size last looked through: a file that did not grow is not read again
    while True:
        path = _transcript(payload)
        size = _size(path)
        if path is not None and size != seen and holds(path, mark, state.offset):
            return
        seen = size
        left = until - time.monotonic()
        if left <= 0:
            state.unwritten = True
            return
        time.sleep(min(POLL_SECONDS, left))


def _size(path: Path | None) -> int:
    try:
        return path.stat().st_size if path is not None else -1
    except OSError:
        return -1


def _worth_a_summary(state: SessionState) -> bool:
    """Whether the session did anything a summary tells (a session opened and closed, or a
    turn that touched nothing yet, leaves none, and its hook loads no summary code)."""
    touched = (state.prompts, state.read, state.edited, state.commands, state.candidates)
    return any(touched) or bool(state.given) or bool(state.episodic)


def _read_transcript(
    root: Path,
    settings: CaptureSettings,
    state: SessionState,
    path: Path | None,
    deadline: float,
    *,
    ending: bool = False,
) -> None:
    from memkit.capture.transcript import Found, scan, settle_heard

    found = Found()
    if path is not None:
        state.transcript = str(path)
        found = scan(path, state, deadline=deadline)
    if ending and found.complete:
        settle_heard(state, found)  # nobody disputed what the last answer said
    offers: list[tuple[Proposal, dict[str, str]]] = []
    for text, prompt_id, line in found.prompts:
        for proposal in proposals_of(text, settings.lower):
            key = prompt_id or prompt_key(text)
            source = {"session": state.session, "event": "transcript", "prompt": key}
            offers.append((proposal, {**source, "line": str(line)}))
    for proposal, line in found.pitfalls:
        source = {"session": state.session, "event": "transcript", "line": str(line)}
        offers.append((proposal, source))
    for heard in found.kept:
        source = {"session": state.session, "event": "answer", "line": str(heard.get("line", ""))}
        offers.append((answer_proposal(heard), source))
    if found.disputed:
        count(root, "disputed", found.disputed)
    for why, n in state.refused.items():
        count(root, why, n)
    state.refused = {}
    outcomes = offer_many(root, offers, settings.lower) if offers else []
    for (proposal, _), outcome in zip(offers, outcomes, strict=True):
        state.note("candidates", _waiting(outcome, proposal))


def answer_proposal(heard: dict[str, Any]) -> Proposal:
    """A statement of the agent's answer that the user did not dispute, as a proposal."""
    return Proposal(
        statement=str(heard.get("statement", "")),
        kind=str(heard.get("kind", "")),
        type=str(heard.get("type", "fact")),
        scope="shared",
        score=float(heard.get("score", 0.0)),
        why=str(heard.get("why", "")) + "; not disputed by the user",
        triggers=tuple(str(t) for t in heard.get("triggers", ())),
        detail={"after": str(heard["after"])} if heard.get("after") else {},
    )


def _keep_given(root: Path, state: SessionState) -> None:
    with usage_log(root) as usage:
        for atom in sorted(usage.given(state.session)):
            state.note("given", atom)


def worker_needed(root: Path, settings: CaptureSettings) -> bool:
    """Whether waiting candidates have work for the worker: the model levels, or a score high
    enough to be written to the user's own folder."""
    if not settings.model and not settings.write_personal:
        return False

    for cand in queue.pending(root):
        if settings.model and cand.level == "L0":
            return True
        if settings.write_personal and cand.score >= settings.upper and cand.scope == "personal":
            return True
    return False


def start_worker(root: Path) -> None:
    """`python -m memkit.capture.worker` for `root`, in a session of its own: it outlives the
    hook, and Claude Code never waits for it."""
    subprocess.Popen(
        [sys.executable, "-m", "memkit.capture.worker", "--repo", str(root)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def pending_note(root: Path) -> list[str]:
    """SessionStart's line about waiting candidates (none when there are none)."""
    try:
        n = pending_count(root)
    except Exception:  # a count is not worth a failed session start
        return []
    if not n:
        return []
    what = "candidate" if n == 1 else "candidates"
    return [f"{n} {what} from your last sessions: `memkit candidates list`"]
