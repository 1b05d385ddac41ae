"""memkit audit: find incoming atoms that contradict or duplicate what is there."""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

from memkit.audit.run import (
    PairResult,
    audit,
    changed_paths,
    format_report,
    problems,
    save_report,
)
from memkit.budget import OutOfTime, budget, git_hook_seconds
from memkit.config import load_config
from memkit.errors import UsageError
from memkit.files import write_atomic
from memkit.findings import describe_refused, printable
from memkit.git import rev_exists
from memkit.reviewlog import news_for
from memkit.roles import identify
from memkit.safety.secrets import redact_each, redact_secrets
from memkit.where import memory_root

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.index.lite", "memkit.index.search"}


log = logging.getLogger(__name__)


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "audit",
        help="check incoming atoms for contradictions and duplicates",
        description="Compare the atoms added or changed between two revisions (default "
        "ORIG_HEAD..HEAD, i.e. what the last pull or merge brought in) with the other active "
        "atoms, and report unresolved contradictions and duplicates. A pair is resolved when "
        "one atom supersedes the other. Exit 1 when something is unresolved, unless --hook.",
    )
    parser.add_argument("--from", dest="from_ref", help="old revision (default ORIG_HEAD)")
    parser.add_argument("--to", dest="to_ref", default="HEAD", help="new revision")
    parser.add_argument("--all", action="store_true", help="audit every atom in the repo")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument(
        "--hook",
        action="store_true",
        help="git hook mode (post-merge, post-rewrite after a rebase): report, never fail",
    )
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    seconds = git_hook_seconds() if args.hook else 0.0
    try:
        # A pull must not wait minutes on one judgement (issue 40): the hook's audit is
        # stopped at its budget, and says how to finish it.
        with budget(seconds):
            return _run(args)
    except OutOfTime:
        print(
            f"memkit audit: stopped after {seconds:g} s, before every incoming atom was "
            "compared; the merge itself is fine. Finish it with `memkit audit --from "
            "ORIG_HEAD`, or `memkit audit --all`"
        )
        return 0
    except Exception:
        if not args.hook:
            raise
        # A post-merge hook must never make a pull look failed.
        log.warning("memkit audit failed; the merge itself is fine", exc_info=True)
        return 0


def _refused(root: Path, paths: list[str] | None) -> dict[str, list[str]]:
    """The incoming files (all with None) that validation refuses: the audit never compares
    them, so nothing it prints quotes them; they are named by path and codes."""
    from memkit.index import IndexUnavailable
    from memkit.index.lite import open_light

    try:
        refusals = open_light(root).refusals
    except (IndexUnavailable, OSError):  # no index to ask: nothing to add
        return {}
    return {p: c for p, c in refusals.items() if paths is None or p in paths}


def _run(args: argparse.Namespace) -> int:
    if args.hook and os.environ.get("PRE_COMMIT_REWRITE_COMMAND") == "amend":
        return 0  # post-rewrite after `git commit --amend`: nothing came in
    root = memory_root(args.repo)
    config = load_config(root)
    refs: tuple[str, str] | None = None
    if args.all:
        paths: list[str] = []
    else:
        from_ref = args.from_ref or "ORIG_HEAD"
        if not rev_exists(root, from_ref) or not rev_exists(root, args.to_ref):
            if args.hook:
                return 0
            raise UsageError(f"unknown revision {from_ref!r} or {args.to_ref!r}")
        refs = (from_ref, args.to_ref)
        paths = changed_paths(root, *refs)
    results = audit(root, paths, config, everything=args.all)
    # Review's decisions on what this person proposed: git shows them only as renames.
    news = news_for(root, *refs, identify(root)) if refs else []
    incoming = len({r.incoming_path for r in results}) if args.all else len(paths)
    save_report(root, results, incoming, refs, audited=None if args.all else paths)
    refused = _refused(root, None if args.all else paths)
    # File names are printed redacted: one named after a token must not print it.
    if args.json:
        data = {
            "refs": refs,
            "incoming": incoming,
            "results": [asdict(r) for r in results],
            "review": news,
        }
        print(json.dumps(redact_each({**data, "refused": refused}), ensure_ascii=False))
    elif problems(results) or refused or not args.hook:
        print(terminal_report(root, results, incoming))
        if refused:
            print(
                f"  not audited, refused by validation ({len(refused)}): "
                f"{describe_refused(refused, 10)}; `memkit validate` says why"
            )
    if news and not args.json:
        print(redact_secrets("\n".join(news)))
    return 0 if args.hook or not problems(results) else 1


SHOWN = 10  # unresolved pairs printed on the terminal; all of them go into TEXT_REPORT
TEXT_REPORT = ".memkit/audit/last.txt"


def terminal_report(root: Path, results: list[PairResult], incoming: int) -> str:
    """The report as the terminal shows it: the counts and the first SHOWN unresolved pairs,
    and where the whole report is (TEXT_REPORT, written here). A pull of 5,000 atoms printed
    36,311 lines (4.3 MB) after `git pull`; a name with a line break printed lines of its
    own choosing (every name and reason is one line now: `memkit.findings.printable`)."""
    shown = [_one_line(r) for r in results]
    full = redact_secrets(format_report(shown, incoming))
    path = root / TEXT_REPORT
    try:
        write_atomic(path, full + "\n", durable=False)
    except OSError as exc:  # a full or read-only disk: the terminal still gets the summary
        log.warning("memkit audit: cannot write %s: %s", path, exc.strerror or exc)
    open_ = problems(shown)
    if len(open_) <= SHOWN:
        return full
    head = full.split("\n", 1)[0]
    first = redact_secrets(format_report(open_[:SHOWN], incoming)).split("\n", 1)[1]
    more = len(open_) - SHOWN
    return (
        f"{head}\n{first}\n  ... and {more} more unresolved pair(s): the whole report is in "
        f"{path} (`memkit audit --all` audits every atom again)"
    )


def _one_line(result: PairResult) -> PairResult:
    return dataclasses.replace(
        result,
        incoming=printable(result.incoming),
        incoming_path=printable(result.incoming_path),
        other=printable(result.other),
        other_path=printable(result.other_path),
        reason=printable(result.reason),
        newer=printable(result.newer),
    )
