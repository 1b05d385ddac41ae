"""memkit index: placeholder until the index lands (issue 4); succeeds without doing work."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("index", help="build or refresh the search index")
    parser.add_argument("--repo", type=Path)
    parser.add_argument("--full", action="store_true")
    parser.add_argument("--quiet", action="store_true")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    del args
    return 0
