"""memkit hook EVENT: answer a Claude Code hook (the same as `memkit-hook EVENT`)."""

from __future__ import annotations

import argparse
from typing import Any

from memkit.claude.events import EVENT_NAMES
from memkit.claude.main import main


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "hook",
        help="answer a Claude Code hook (reads its JSON on stdin)",
        description="Read a Claude Code hook's JSON on stdin and print the documented JSON. "
        "Never fails: errors are logged under .memkit/logs/ and the exit code is 0.",
    )
    parser.add_argument("event", choices=tuple(EVENT_NAMES))
    parser.add_argument("--repo", action="append", default=[], help="memory repository")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return main([args.event, *[x for r in args.repo for x in ("--repo", r)]])
