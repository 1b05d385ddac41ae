"""CI output: plain text, GitHub annotations + step summary, GitLab code quality, JSON."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

from memkit.findings import Finding


def _escape(value: str, *, prop: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return value.replace(":", "%3A").replace(",", "%2C") if prop else value


def github_annotations(findings: Sequence[Finding]) -> list[str]:
    lines = []
    for f in findings:
        level = "error" if f.is_error else "warning"
        props = (
            f"file={_escape(f.path, prop=True)},line={f.line},col={f.col},"
            f"title={_escape(f.code, prop=True)}"
        )
        lines.append(f"::{level} {props}::{_escape(f'{f.code} {f.message}')}")
    return lines


def markdown_summary(findings: Sequence[Finding], sections: Sequence[str], ok: bool) -> str:
    errors = sum(f.is_error for f in findings)
    warnings = len(findings) - errors
    head = "✅ memkit: memory checks passed" if ok else "❌ memkit: memory checks failed"
    lines = [f"## {head}", "", f"{errors} error(s), {warnings} warning(s).", ""]
    if findings:
        lines += ["| file | line | code | message |", "|---|---|---|---|"]
        for f in findings:
            message = f.message.replace("|", "\\|")
            lines.append(f"| `{f.path}` | {f.line} | {f.code} | {message} |")
        lines.append("")
    lines += [s for section in sections for s in (section, "")]
    return "\n".join(lines)


def append_step_summary(text: str) -> None:
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if target:
        with Path(target).open("a", encoding="utf-8") as fh:
            fh.write(text + "\n")


def gitlab_code_quality(findings: Sequence[Finding]) -> list[dict[str, object]]:
    report: list[dict[str, object]] = []
    for f in findings:
        fingerprint = hashlib.sha256(f"{f.path}:{f.code}:{f.message}".encode()).hexdigest()
        report.append(
            {
                "description": f"{f.code} {f.message}",
                "check_name": f.code,
                "fingerprint": fingerprint,
                "severity": "major" if f.is_error else "minor",
                "location": {"path": f.path, "lines": {"begin": f.line}},
            }
        )
    return report


def to_json(findings: Sequence[Finding], evals: object, ok: bool) -> str:
    return json.dumps(
        {
            "ok": ok,
            "findings": [
                {
                    "path": f.path,
                    "line": f.line,
                    "col": f.col,
                    "code": f.code,
                    "message": f.message,
                    "severity": f.severity.value,
                }
                for f in findings
            ],
            "evals": evals,
        },
        ensure_ascii=False,
        indent=1,
    )
