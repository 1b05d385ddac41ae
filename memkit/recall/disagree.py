"""When two atoms that the last audit found contradictory are both injected, say so.

One line naming both, inside the memory fence, so Claude does not silently pick one. The pair
must still stand in the files as they are now (`memkit.audit.status`): a pair settled by a
`supersedes:` since the audit is not mentioned.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from memkit.audit.status import Seen, pairs_among, unresolved_now


def disagreement_lines(items: Iterable[Any]) -> list[str]:
    """Lines for each unresolved contradiction whose two atoms are both among `items`
    (anything with `.id` and `.repo`, the root of the repository it came from)."""
    by_repo: dict[str, set[str]] = {}
    for item in items:
        if item.repo:
            by_repo.setdefault(item.repo, set()).add(item.id)
    lines: list[str] = []
    for repo, ids in by_repo.items():
        seen: Seen = {}
        if len(ids) < 2:
            continue
        root = Path(repo)
        for pair in pairs_among(root, ids):  # bounded: no whole parse of a large report
            if (
                pair.get("kind") == "contradicts"
                and pair.get("incoming") in ids
                and pair.get("other") in ids
                and unresolved_now(root, pair, seen)
            ):
                lines.append(
                    f"memkit: {pair['incoming']} and {pair['other']} disagree "
                    f"({pair.get('reason', 'the last audit found them contradictory')}) and "
                    "the team has not settled which holds: do not pick one silently."
                )
    return lines
