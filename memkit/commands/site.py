"""memkit site: a static, self-contained site of the team's memory."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memkit.config import load_config
from memkit.site.build import build_site
from memkit.where import memory_root


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "site",
        help="write a static site of the memory (open it from disk or publish it)",
        description="Write HTML, CSS, a little JavaScript and SVG into DIR: every atom the team "
        "may see, rendered with its history, links and usage; a start page with counts, "
        "health, conflicts and pending review; the archive; a graph of links; plots; offline "
        "search (English and Chinese). Nothing is loaded from outside DIR. Refused files, "
        "personal atoms and session summaries are never shown. Pages whose inputs did not "
        "change since the last build into DIR are kept as they are.",
    )
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="output folder")
    parser.add_argument("--title", help="the memory's name on every page (default: the folder's)")
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    root = memory_root(args.repo)
    stats = build_site(root, args.out, load_config(root), memory=args.title)
    hidden = ", ".join(f"{n} {why}" for why, n in sorted(stats.hidden.items())) or "none"
    took = sum(stats.seconds.values())
    print(
        f"memkit site: {stats.atoms} atoms shown (not shown: {hidden}); "
        f"{stats.read} of {stats.files} atom file(s) read; "
        f"{stats.written} file(s) written, {stats.reused} unchanged, {stats.removed} removed "
        f"in {took:.2f} s -> {args.out / 'index.html'}"
    )
    return 0
