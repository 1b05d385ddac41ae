"""A budget of seconds that stops the work, not only the wait for its answer.

A long-lived process (the warm engine, the MCP server) answers one request after another.
When a request runs past the time its asker waits (a hook gives up after 1.5 s, an MCP call
is answered with an error at its deadline), the answer is lost, yet the work would go on
burning a core for as long as it takes, and every request after it would wait. So the work
runs under a timer that sends SIGALRM to its thread, whose handler raises `OutOfTime` into
it: Python code stops at its next instruction, a regular expression at its next check for
signals (`re` checks them as it backtracks), a `subprocess.run` kills its child on the way
out.

Main thread only (Python runs signal handlers there); elsewhere the budget says so and the
work runs unbounded, as before. Standard library only.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType


class OutOfTime(BaseException):
    """Raised into the work when its budget is spent. A BaseException: no `except Exception`
    of the work may swallow it and go on."""


def can_stop() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def budget(seconds: float) -> Iterator[bool]:
    """Run the block for at most `seconds` (it raises OutOfTime then); yields whether the
    budget can stop it (False off the main thread, or with `seconds` <= 0: unbounded)."""
    if seconds <= 0 or not can_stop():
        yield False
        return
    over = threading.Event()

    def expired(_signum: int, _frame: FrameType | None) -> None:
        if not over.is_set():
            over.set()
            raise OutOfTime(f"stopped after its {seconds:g} s budget")

    # A timer thread signals this thread by name. A process-wide timer (setitimer) lets the
    # kernel hand SIGALRM to any thread that does not block it (the server's reader, a
    # timer, tantivy's workers): Python still runs the handler on the main thread, but only
    # once that thread wakes, and a thread blocked reading a hung git's pipe never woke.
    target = threading.get_ident()
    timer = threading.Timer(seconds, _interrupt, (target, over))
    timer.daemon = True
    previous = signal.signal(signal.SIGALRM, expired)
    timer.start()
    try:
        yield True
    finally:
        over.set()  # a signal already on its way is let through by `expired`, not raised
        timer.cancel()
        timer.join()
        signal.signal(signal.SIGALRM, previous)


def _interrupt(thread: int, over: threading.Event) -> None:
    if not over.is_set():
        signal.pthread_kill(thread, signal.SIGALRM)


GIT_HOOK_SECONDS = 20.0  # what a post-merge/checkout hook may add to the git command


def git_hook_seconds() -> float:
    """The budget of a step of a git hook (the pull's refresh, its audit): GIT_HOOK_SECONDS,
    or MEMKIT_GIT_HOOK_BUDGET (seconds)."""
    try:
        seconds = float(os.environ.get("MEMKIT_GIT_HOOK_BUDGET") or GIT_HOOK_SECONDS)
    except ValueError:
        return GIT_HOOK_SECONDS
    return seconds if seconds > 0 else GIT_HOOK_SECONDS
