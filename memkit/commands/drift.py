"""memkit drift: check the atoms' claims (paths, config values, commands, versions) against a
code project, and say which are gone or changed."""

from __future__ import annotations

import argparse
import json
import logging
import os
from pathlib import Path
from typing import Any

from memkit.ci.report import append_step_summary, github_annotations, markdown_summary
from memkit.drift.output import as_json, findings, stored_entry, summary
from memkit.drift.projects import known_projects, remember
from memkit.drift.propose import propose
from memkit.drift.run import Report, drift, project_root
from memkit.drift.say import describe
from memkit.drift.stored import load, save_project
from memkit.errors import UsageError
from memkit.findings import Finding
from memkit.repo import nearest_repo
from memkit.safety.secrets import redact_secrets
from memkit.where import find_memory, wired_memories

log = logging.getLogger(__name__)


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "drift",
        help="check the atoms against a code project: paths gone, values changed",
        description="Read each live atom's concrete claims about code (the files and folders "
        "it names and its `paths:`, config keys with a value, make/npm/just/nox/tox targets "
        "and scripts, pinned versions) and check them against a code project's git tree: gone "
        "(a path the project's history held, a target a commit took out), changed (the key "
        "holds another value, the version is another), confirmed, or not checkable. Run in a "
        "memory repository it checks the code projects this clone knows (`memkit install`, "
        "earlier --project) or the one it lies in; run in a code project, that project against "
        "the memories its agent files name. Exit 1 when an atom is stale (not with --hook). "
        "The verdicts are kept for `memkit health`, the site and the hooks.",
    )
    parser.add_argument(
        "--project", type=Path, action="append", default=[], help="a code project (repeatable)"
    )
    parser.add_argument(
        "--repo", type=Path, action="append", default=[], help="a memory repository (repeatable)"
    )
    parser.add_argument(
        "--rev", default="HEAD", help="the project's revision to check (default HEAD)"
    )
    parser.add_argument(
        "--base",
        help="check only what the change from BASE (a branch, a commit) to --rev makes stale: "
        "a pull request of the code project in its CI",
    )
    parser.add_argument("--staged", action="store_true", help="check the project's staged tree")
    parser.add_argument(
        "--propose",
        action="store_true",
        help="write the new values (and renamed paths) into the atoms, for review: nothing is "
        "committed",
    )
    parser.add_argument(
        "--hook",
        action="store_true",
        help="a code project's commit hook: the staged tree; say what this commit makes stale; "
        "never fail",
    )
    parser.add_argument(
        "--all", action="store_true", help="with --json: every claim's verdict, not only the stale"
    )
    default = "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    parser.add_argument("--format", choices=("text", "github", "json"), default=default)
    parser.add_argument("--json", action="store_true", help="same as --format json")
    parser.set_defaults(func=run)


def _memories(args: argparse.Namespace) -> list[Path]:
    if args.repo:
        found = [find_memory(r) for r in args.repo]
        return [f for f in found if f is not None]
    here = Path.cwd().resolve()
    if nearest_repo(here) is not None:
        found_here = find_memory(None, here)
        return [found_here] if found_here is not None else []
    wired = wired_memories(here)
    if wired:
        return wired
    here_or_above = find_memory(None, here)
    return [here_or_above] if here_or_above is not None else []


def _projects(args: argparse.Namespace, memory: Path) -> list[Path]:
    if args.project:
        return [project_root(p.resolve()) for p in args.project]
    here = Path.cwd().resolve()
    if nearest_repo(here) is None:
        return [project_root(here)]  # run in the code project itself
    return known_projects(memory)


def run(args: argparse.Namespace) -> int:
    if args.hook:
        try:
            return _hook(args)
        except Exception:  # a commit hook of the code project never fails the commit
            log.warning("memkit drift --hook failed; the commit goes on", exc_info=True)
            return 0
    fmt = "json" if args.json else args.format
    if args.propose and args.base:
        raise UsageError("--propose writes what the code holds now: run it without --base")
    memories = _memories(args)
    if not memories:
        raise UsageError(
            "no memory repository here: run this in a memory repository, in a code project "
            "wired to one (`memkit install`), or pass --repo PATH"
        )
    reports: list[tuple[Path, Report]] = []
    for memory in memories:
        projects = _projects(args, memory)
        if not projects:
            raise UsageError(
                f"{memory} knows no code project yet: name one with --project DIR (it is "
                "remembered), or wire one with `memkit install AGENT --repo`"
            )
        for project in projects:
            report = drift(memory, project, rev=args.rev, staged=args.staged, base=args.base)
            reports.append((memory, report))
            if args.base is None:
                remember(memory, project)
                if not args.staged and args.rev == "HEAD":
                    save_project(memory, str(report.project), stored_entry(report))
    several = len({str(r.project) for _, r in reports}) > 1
    stale = any(r.stale for _, r in reports)
    if fmt == "json":
        print(json.dumps([as_json(r, every=args.all) for _, r in reports], ensure_ascii=False))
    else:
        found: list[Finding] = []
        for _, report in reports:
            found += findings(report, project_named=several)
        lines = github_annotations(found) if fmt == "github" else [f.format() for f in found]
        for line in lines:
            print(line)
        for _, report in reports:
            print(redact_secrets(summary(report)))
        if fmt == "github":
            append_step_summary(redact_secrets(markdown_summary(found, [], not found)))
    if args.propose:
        _propose(reports)
    return 1 if stale else 0


def _propose(reports: list[tuple[Path, Report]]) -> None:
    edited = 0
    for memory, report in reports:
        edits, left = propose(memory, report.stale)
        for edit in edits:
            print(redact_secrets(f"proposed: {edit.path}:{edit.line}: {edit.old} -> {edit.new}"))
        for atom, verdict in left:
            print(
                redact_secrets(
                    f"needs a person: {atom.path}:{verdict.claim.line}: {describe(verdict)} "
                    f"(`memkit show {atom.id}`)"
                )
            )
        edited += len(edits)
    if edited:
        print(
            f"memkit drift: {edited} edit(s) written; review with `git diff`, then commit "
            "(nothing was committed)"
        )


def _hook(args: argparse.Namespace) -> int:
    here = Path.cwd().resolve()
    memories = [find_memory(r) for r in args.repo] if args.repo else wired_memories(here)
    if not memories:  # MEMKIT_REPOS, or a memory the project lies in
        memories = [find_memory(None, here)]
    project = project_root(args.project[0].resolve() if args.project else here)
    for memory in [m for m in memories if m is not None]:
        before = load(memory).get("projects", {}).get(str(project), {}).get("stale", {})
        report = drift(memory, project, staged=True)
        remember(memory, project)
        entry = stored_entry(report)
        save_project(memory, str(project), entry)
        new = [a for a in report.stale if a.id not in before]
        for atom in new:
            for verdict in atom.stale:
                print(
                    redact_secrets(
                        f"{atom.path}:{verdict.claim.line}: {describe(verdict)} "
                        f"(atom `{atom.id}` in {memory.name})"
                    )
                )
        if report.stale:
            print(
                f"memkit drift: this commit leaves {len(report.stale)} atom(s) of {memory.name} "
                f"stale ({len(new)} new); `memkit drift --propose --repo {memory}` writes the "
                "new values"
            )
    return 0
