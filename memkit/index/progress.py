"""A progress bar for long `memkit index` runs, on a terminal only.

Drawn on stderr when stderr is a terminal and there are enough atoms to make a wait
(`SHOW_FROM`); never when the output is piped or redirected, nor in git hooks and the engine
(they pass --quiet). One line, redrawn in place at most ten times a second, erased at the end.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

SHOW_FROM = 500  # atoms to index before a bar is worth drawing (~0.3 s of work)
WIDTH = 30


class Bar:
    def __init__(self, total: int, out: TextIO) -> None:
        self.total = total
        self.done = 0
        self.out = out
        self.started = time.monotonic()
        self.drawn = 0.0

    def __call__(self, count: int) -> None:
        self.done = min(self.total, self.done + count)
        now = time.monotonic()
        if now - self.drawn >= 0.1 or self.done == self.total:
            self.drawn = now
            self.draw()

    def draw(self) -> None:
        filled = WIDTH * self.done // max(1, self.total)
        stage = "reading atoms" if self.done < self.total else "computing vectors"
        self.out.write(
            f"\rmemkit index: [{'#' * filled}{'.' * (WIDTH - filled)}] "
            f"{self.done:,}/{self.total:,} atoms, {stage} "
            f"({time.monotonic() - self.started:.0f} s)\x1b[K"
        )
        self.out.flush()

    def close(self) -> None:
        self.out.write("\r\x1b[K")
        self.out.flush()


def _ignore(_count: int) -> None:
    return None


@contextmanager
def progress_bar(
    total: int, *, enabled: bool, out: TextIO | None = None
) -> Iterator[Callable[[int], None]]:
    """A callable told how many more atoms are read; draws only when worth it (see module)."""
    stream = out or sys.stderr
    if not enabled or total < SHOW_FROM or not stream.isatty():
        yield _ignore
        return
    bar = Bar(total, stream)
    bar.draw()
    try:
        yield bar
    finally:
        bar.close()
