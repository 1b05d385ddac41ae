"""The one error type of the CLI; the boundary in `memkit.main` turns it into an exit code."""

from __future__ import annotations


class MemkitError(RuntimeError):
    """A problem the user can act on: printed as one line, exit code 1."""

    exit_code = 1


class UsageError(MemkitError):
    """The command line itself is wrong: exit code 2, like argparse."""

    exit_code = 2
