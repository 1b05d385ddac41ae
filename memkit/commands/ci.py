"""memkit ci --base REF: the checks of a pull request to a memory repository."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from memkit.ci.report import (
    append_step_summary,
    github_annotations,
    gitlab_code_quality,
    markdown_summary,
    to_json,
)
from memkit.ci.run import run_ci
from memkit.config import load_config
from memkit.files import write_atomic
from memkit.lifecycle.health import build_health
from memkit.lifecycle.report import render_markdown
from memkit.safety.secrets import redact_secrets
from memkit.where import memory_root


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "ci",
        help="run every memory check on a pull request",
        description="On the atoms changed between the merge base of BASE and HEAD: validate, "
        "write gate, duplicates, secrets, roles with the pull-request author as identity, the "
        "conflict audit and the eval gate (evals/queries.yaml). Exit 1 on any failure.",
    )
    parser.add_argument("--base", required=True, help="the target branch or commit")
    parser.add_argument("--head", help="the pull request's head (default: HEAD, checked out)")
    parser.add_argument("--actor", help="the pull-request author (user name or email)")
    default = "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    parser.add_argument("--format", choices=("text", "github", "gitlab", "json"), default=default)
    parser.add_argument(
        "--gitlab-report",
        type=Path,
        default=Path("gl-code-quality-report.json"),
        help="where --format gitlab writes its code-quality report",
    )
    parser.add_argument("--no-evals", action="store_true", help="skip the eval gate")
    parser.add_argument(
        "--health",
        action="store_true",
        help="add the memory's health report (`memkit health --markdown`) to the summary",
    )
    parser.add_argument("--repo", type=Path, help="memory repository (default: from cwd)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    root = memory_root(args.repo)
    result = run_ci(root, args.base, args.head, args.actor, evals=not args.no_evals)
    sections = []
    if result.evals is not None:
        verdict = (
            "passed"
            if result.evals.ok
            else (f"failed: Recall@5 dropped by more than {result.evals.max_drop:.3f}")
        )
        sections.append(f"### Eval gate {verdict}\n\n{result.evals.table()}")
    if args.health:
        sections.append(render_markdown(build_health(root, load_config(root))).rstrip("\n"))
    if args.format == "json":
        evals = None
        if result.evals is not None:
            evals = {
                "base_recall": result.evals.base_recall,
                "head_recall": result.evals.head_recall,
                "ok": result.evals.ok,
                "rows": [r.__dict__ for r in result.evals.rows],
            }
        print(to_json(result.findings, evals, result.ok))
        return 0 if result.ok else 1
    if args.format == "github":
        for line in github_annotations(result.findings):
            print(line)
        summary = markdown_summary(result.findings, sections, result.ok)
        append_step_summary(redact_secrets(summary))
    else:
        for finding in result.findings:
            print(finding.format())
    if args.format == "gitlab":
        report = json.dumps(gitlab_code_quality(result.findings), indent=1)
        write_atomic(args.gitlab_report, report + "\n")
    for section in sections:
        print(redact_secrets(section))
    errors = sum(f.is_error for f in result.findings)
    print(
        f"memkit ci: {len(result.changes)} changed file(s), {errors} error(s), "
        f"{len(result.findings) - errors} warning(s); {'ok' if result.ok else 'FAILED'}"
    )
    return 0 if result.ok else 1
