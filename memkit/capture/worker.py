"""The capture worker: `python -m memkit.capture.worker --repo PATH`, started by a Stop or
SessionEnd hook in a process of its own, so that the model levels and the router's writes never
keep Claude Code waiting.

For each waiting candidate, best first, until its deadline: L1 and L2 when `capture.model` is
on (within the session's token budget), then the router on the new score (below `lower`:
dropped and counted); a candidate at or above `upper` is written to the user's own
`personal/<user>/` when `write_personal` is on, through the checks of `memkit add`. One worker
per repository at a time (a lock); a second one leaves at once.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import logging
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from memkit.capture import model, queue
from memkit.capture import state as states
from memkit.capture.accept import write_personal
from memkit.capture.provenance import held
from memkit.capture.queue import Candidate
from memkit.capture.settings import DROP, WRITE, CaptureSettings, load
from memkit.llm import Endpoint
from memkit.recall.hooklog import log_error

log = logging.getLogger(__name__)
SECONDS = 60.0


def refine(
    root: Path, cand: Candidate, endpoint: Endpoint, settings: CaptureSettings, deadline: float
) -> Candidate | None:
    """L1, then L2, for one candidate; None when it was dropped. Raises one of
    `model.CALL_ERRORS` when the endpoint fails (the caller stops asking it)."""
    session = cand.sessions[0] if cand.sessions else ""
    tokens = model.cost(cand.statement)
    with states.session_lock(root, session):
        spent = states.load(root, session)
        if spent.tokens + tokens > settings.token_budget:
            return cand  # the session's budget is spent: L0 stands
        spent.tokens += tokens
        states.save(root, spent)
    said = model.l1(endpoint, cand.statement, timeout=deadline - time.monotonic())
    if said is False:
        queue.settle(root, cand, queue.DROPPED, reason="the model (L1) found no durable rule")
        queue.count(root, "model")
        return None
    if said is None:
        return cand
    cand = replace(cand, level="L1", why=cand.why + "; L1: yes")
    with states.session_lock(root, session):
        spent = states.load(root, session)
        if spent.tokens > settings.l1_only_above or spent.tokens + tokens > settings.token_budget:
            queue.update(root, cand)
            return cand  # L1 only, past 220 tokens
        spent.tokens += tokens
        states.save(root, spent)
    try:
        found = model.l2(
            endpoint,
            cand.statement,
            timeout=deadline - time.monotonic(),
            model=l2_model if isinstance(l2_model := settings.model.get("l2_model"), str) else None,
        )
    except ValueError:
        queue.update(root, cand)
        return cand
    if queue.refusal(found.statement):
        queue.update(root, cand)
        return cand  # the model quoted something that may not be stored: keep L0's text
    cand = replace(
        cand,
        level="L2",
        score=round(found.confidence, 3),
        statement=found.statement,
        type=found.type,
        scope=found.scope,
        triggers=found.triggers or cand.triggers,
        why=cand.why + f"; L2: confidence {found.confidence:.2f}",
    )
    if settings.route(cand.score) == DROP:
        queue.settle(root, cand, queue.DROPPED, reason="the model (L2) was not confident enough")
        queue.count(root, "below")
        return None
    queue.update(root, cand)
    return cand


def run(root: Path, seconds: float = SECONDS) -> dict[str, int]:
    """Work through the waiting candidates until done or `seconds` have passed; returns counts
    of what happened."""
    settings = load(root)
    done = {"refined": 0, "dropped": 0, "written": 0}
    endpoint = Endpoint.from_config(settings.model, "capture model") if settings.model else None
    deadline = time.monotonic() + seconds
    for cand in queue.pending(root):
        if time.monotonic() >= deadline:
            break
        current: Candidate | None = cand
        if endpoint is not None and cand.level == "L0":
            try:
                current = refine(root, cand, endpoint, settings, deadline)
            except model.CALL_ERRORS as exc:
                log.info("capture model unavailable (%s); L0 scores stand", type(exc).__name__)
                endpoint = None  # one failure ends the asking: N candidates, not N timeouts
            if current is None:
                done["dropped"] += 1
                continue
            done["refined"] += current is not cand
        if (
            current is not None
            and current.scope == "personal"  # a team's decision waits for a person (issue 43)
            and settings.route(current.score) == WRITE
            and not (current.detail.get("held") or held(current.statement))
            and write_personal(root, current).written
        ):
            done["written"] += 1
    return done


@contextlib.contextmanager
def only_one(root: Path) -> Iterator[bool]:
    folder = queue.capture_dir(root)
    fd = os.open(folder / "worker.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        yield False
        return
    try:
        yield True
    finally:
        os.close(fd)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m memkit.capture.worker")
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--seconds", type=float, default=SECONDS)
    args = parser.parse_args(argv)
    root = args.repo.resolve()
    try:
        with only_one(root) as mine:
            if mine:
                run(root, args.seconds)
    except Exception:  # a detached worker has nowhere to print: hooks.log
        log_error(str(root), "capture worker")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
