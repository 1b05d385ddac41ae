"""memkit health: one report of what in the memory needs attention, and what to run."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from memkit.config import load_config
from memkit.lifecycle.health import build_health
from memkit.lifecycle.report import render_markdown, render_text
from memkit.where import memory_root


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "health",
        help="report what is stale, unused, expired, disputed or pending, with the fix",
        description="Counts by scope, type and tier; atoms unused for a while; expired atoms; "
        "promotion and archive candidates; atoms contradicted in use; unresolved conflicts of "
        "the last audit; superseded atoms still active; pending reviews; invalid files; the "
        "index's freshness. Each line names the command that acts on it. Changes nothing.",
    )
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="print JSON")
    form.add_argument("--markdown", action="store_true", help="print Markdown (a PR summary)")
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    root = memory_root(args.repo)
    health = build_health(root, load_config(root))
    if args.json:
        text = json.dumps(health.as_json(), ensure_ascii=False)
    elif args.markdown:
        text = render_markdown(health)
    else:
        text = render_text(health)
    print(text.rstrip("\n"))  # the items are redacted already (`Line`)
    return 0
