"""A drift report as findings, JSON, a Markdown summary, and the entry `.memkit/drift.json`
keeps.

Checked from the memory (`memkit drift`), a finding points at the atom and the line of its
claim: `shared/worker-retries.md:8:23: MK402 warning: ...`. Checked in a code project's pull
request (`--base`), it points at the project's file the change touched: that is where a
reviewer of the code looks.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from memkit.drift.check import CHANGED, GONE, Verdict
from memkit.drift.run import AtomDrift, Report
from memkit.drift.say import describe, pr_sentence
from memkit.findings import Finding, Severity

CODES = {GONE: "MK401", CHANGED: "MK402"}


def findings(report: Report, *, project_named: bool = False) -> list[Finding]:
    out: list[Finding] = []
    where = f" [{report.project.name}]" if project_named else ""
    for atom in report.stale:
        for verdict in atom.stale:
            code = CODES[verdict.state]
            if report.base is not None:
                file = verdict.now if verdict.claim.kind == "path" and verdict.now else verdict.file
                message = f"{pr_sentence(verdict, atom.id)} ({atom.path}:{verdict.claim.line})"
                out.append(
                    Finding(
                        file or atom.path, verdict.line or 1, 1, code, message, Severity.WARNING
                    )
                )
            else:
                message = f"{describe(verdict)} (atom `{atom.id}`){where}"
                out.append(
                    Finding(
                        atom.path,
                        verdict.claim.line,
                        verdict.claim.col,
                        code,
                        message,
                        Severity.WARNING,
                    )
                )
    return out


def summary(report: Report) -> str:
    counts = report.counts()
    stale = report.stale
    gone = sum(1 for a in stale for v in a.stale if v.state == GONE)
    changed = sum(1 for a in stale for v in a.stale if v.state == CHANGED)
    rev = (report.commit or "the staged tree")[:10]
    scope = f"the change from {report.base[:10]} to {rev}" if report.base else rev
    return (
        f"memkit drift: {report.checked} live atom(s) checked against {report.project} "
        f"({scope}) in {report.seconds:.2f} s: {len(stale)} stale atom(s) (claims gone {gone}, "
        f"changed {changed}); claims confirmed {counts.get('confirmed', 0)}, not checkable "
        f"{counts.get('not checkable', 0)}"
    )


def _verdict_json(v: Verdict) -> dict[str, Any]:
    c = v.claim
    return {
        "state": v.state,
        "kind": c.kind,
        "claim": c.text,
        "line": c.line,
        "col": c.col,
        "now": v.now,
        "file": v.file,
        "file_line": v.line,
        "since": v.since,
        "why": v.why,
        "say": describe(v),
    }


def as_json(report: Report, *, every: bool = False) -> dict[str, Any]:
    """The report as data; `every`: every atom's every verdict, not only the stale."""
    atoms = report.atoms if every else report.stale
    return {
        "project": str(report.project),
        "commit": report.commit,
        "base": report.base,
        "checked": report.checked,
        "seconds": round(report.seconds, 3),
        "counts": report.counts(),
        "atoms": [
            {
                "id": a.id,
                "path": a.path,
                "stale": bool(a.stale),
                "verdicts": [_verdict_json(v) for v in (a.verdicts if every else a.stale)],
            }
            for a in atoms
        ],
    }


def stored_entry(report: Report) -> dict[str, Any]:
    """What `.memkit/drift.json` keeps of a check (`memkit.drift.stored`)."""
    stale: dict[str, Any] = {}
    for atom in report.stale:
        stale[atom.id] = _atom_entry(atom)
    return {
        "checked": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": report.commit,
        "atoms": report.checked,
        "counts": report.counts(),
        "stale": stale,
    }


def _atom_entry(atom: AtomDrift) -> dict[str, Any]:
    return {
        "path": atom.path,
        "stamp": list(atom.stamp),
        "found": [
            {
                "state": v.state,
                "kind": v.claim.kind,
                "claim": v.claim.text,
                "line": v.claim.line,
                "say": describe(v),
            }
            for v in atom.stale
        ],
    }
