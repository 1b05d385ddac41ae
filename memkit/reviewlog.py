"""What review decided, read back from the review log (`shared/_review-log.jsonl`).

Management's approvals and rejections reach everyone with a pull, but git shows a decision
as a rename (`shared/_pending/use-bun.md => archive/rejected/use-bun.md`); the person who
proposed the atom is told in words, by the pull's audit hook: who decided, what, and why.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from memkit.atom import ID_MAX_LEN, PENDING_DIR
from memkit.git import output, show
from memkit.roles import Identity

REVIEW_LOG = "shared/_review-log.jsonl"
PENDING = f"{PENDING_DIR}/"


@dataclass(frozen=True)
class Decision:
    action: str  # approve | reject
    id: str
    by: str
    source: str  # where it waited (shared/_pending/…)
    target: str  # where it went
    reason: str = ""
    revises: str = ""


def decisions_between(root: Path, old: str, new: str) -> list[Decision]:
    """The decisions appended to the review log between two revisions, oldest first."""
    seen = set((show(root, old, REVIEW_LOG) or "").splitlines())
    out = []
    for line in (show(root, new, REVIEW_LOG) or "").splitlines():
        if not line.strip() or line in seen:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict):
            continue
        out.append(
            Decision(
                str(entry.get("action", "")),
                str(entry.get("id", "")),
                str(entry.get("by", "")),
                str(entry.get("from", "")),
                str(entry.get("to", "")),
                str(entry.get("reason") or ""),
                str(entry.get("revises") or ""),
            )
        )
    return out


def proposer(root: Path, rev: str, path: str) -> str:
    """The email of whoever first committed `path` (as of `rev`); "" if nobody did."""
    found = output(root, "log", "--format=%ae", "--diff-filter=A", rev, "--", path)
    return found.split()[-1].lower() if found else ""


def news_for(root: Path, old: str, new: str, who: Identity) -> list[str]:
    """One line for each decision between `old` and `new` about an atom `who` proposed."""
    lines = []
    for d in decisions_between(root, old, new):
        if not d.source.startswith(PENDING) or d.by == who.user or not who.email:
            continue
        if proposer(root, new, d.source) != who.email:
            continue
        if d.action == "reject":
            lines.append(
                f"review: `{d.id}`, which you proposed, was rejected by {d.by}: "
                f"{d.reason or 'no reason given'} (kept in {d.target})"
            )
        elif d.action == "approve":
            what = f"as the new text of `{d.revises}` " if d.revises else ""
            lines.append(
                f"review: `{d.id}`, which you proposed, was approved by {d.by} {what}({d.target})"
            )
    return lines


def is_revision(new_id: str, old_id: str) -> bool:
    """Whether `new_id` is what `memkit review propose` names a change to `old_id`:
    `use-pnpm-2` (`use-pnpm-3`, …) for `use-pnpm`, `use-pnpm-3` for `use-pnpm-2`."""
    m = re.fullmatch(r"(.*)-(\d+)", old_id)
    base, first = (m.group(1), int(m.group(2)) + 1) if m else (old_id, 2)
    n = re.fullmatch(r"(.*)-(\d+)", new_id)
    if n is None or int(n.group(2)) < first:
        return False
    return n.group(1) == base[: ID_MAX_LEN - len(n.group(2)) - 1]
