"""Checks run by git hooks (through pre-commit) and by CI: one module per hook."""

from __future__ import annotations

import sys
from collections.abc import Callable

from memkit.errors import MemkitError


def run_hook(prog: str, check: Callable[[], int]) -> int:
    """The error boundary of a hook's `main`: one line on stderr, exit 2 usage, 1 other."""
    try:
        return check()
    except MemkitError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return exc.exit_code
