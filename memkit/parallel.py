"""Pure Python work over many atoms, on two cores: a forked child takes the second half.

Indexing and whole-repository validation spend their time parsing and checking atoms one
by one, under one interpreter lock. With enough atoms (`minimum`) and a second core, the
last half goes to a forked child process (it inherits everything loaded, nothing is pickled
on the way in) and comes back pickled through a pipe. A child that fails is not trusted: its
half is done here after all. MEMKIT_PROCESSES=1 keeps everything in one process.
"""

from __future__ import annotations

import gc
import logging
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"multiprocessing"}


log = logging.getLogger(__name__)
T = TypeVar("T")
R = TypeVar("R")


def second_core() -> bool:
    if sys.platform == "win32" or not hasattr(os, "fork"):
        return False
    if os.environ.get("MEMKIT_PROCESSES") == "1":
        return False
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cores or 1) >= 2


def in_halves(
    items: Sequence[T],
    work: Callable[[Sequence[T], bool], R],
    *,
    minimum: int,
    on_first: Callable[[R], None] | None = None,
) -> list[R]:
    """[work(items, False)], or [work(first half, False), work(second half, True)] with the
    second half done meanwhile by a forked child (the flag: this call runs in the child).
    `on_first` gets this process's result as soon as it is ready."""
    if len(items) < minimum or not second_core():
        done = work(items, False)
        if on_first is not None:
            on_first(done)
        return [done]
    import multiprocessing

    half = len(items) // 2
    mine, theirs = items[:half], items[half:]
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(send, work, theirs), daemon=True)
    child.start()
    send.close()
    first = work(mine, False)
    if on_first is not None:
        on_first(first)
    try:
        second: Any = receive.recv()
    except EOFError:
        second = RuntimeError("the second process ended without an answer")
    child.join()
    if isinstance(second, BaseException):
        log.warning("work in a second process failed (%s); doing it here", second)
        second = work(theirs, False)
    return [first, second]


def _child(send: Any, work: Callable[[Any, bool], Any], items: Any) -> None:
    try:
        result: Any = work(items, True)
    except BaseException as exc:
        result = RuntimeError(f"{type(exc).__name__}: {exc}")
    send.send(result)
    send.close()


@contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """For building tens of thousands of small records with no cycles among them (an atom
    table, a site's pages): the cyclic collector, run every few hundred allocations, would
    take half the time finding nothing."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
