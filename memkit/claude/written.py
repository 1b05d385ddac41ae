"""PostToolUse, after a valid atom file was written: does it contradict a live atom?

The same write check as pre-commit and `memkit add` (`memkit.audit.write`). A new file that must
go through review is moved to `shared/_pending/` at once (it is Claude's uncommitted draft, and
moving it loses nothing); an edit of a tracked atom is left where it is. Either way Claude is
told which atom it contradicts and how to settle it (`supersedes:`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from memkit.atom.read import read_atom
from memkit.audit.write import PENDING, conflicts, remember
from memkit.claude.protocol import context_output
from memkit.config import load_config
from memkit.git import tracked


def contradiction_check(root: Path, rel: str) -> dict[str, Any] | None:
    config = load_config(root)
    atom = read_atom(root, rel, config, fast=True).atom
    if atom is None:
        return None
    found = conflicts(root, [atom], config)
    if not found:
        return None
    lines = [
        f"- contradicts `{c.other_id}` ({c.other_path}): {c.reason}; if it replaces that atom, "
        f"add `supersedes: [{c.other_id}]` to its frontmatter"
        for c in found
    ]
    if not any(c.route for c in found):
        remember(root, found)
        return context_output(
            "PostToolUse", f"memkit: {rel} changes what live memory says:\n" + "\n".join(lines)
        )
    target = f"{PENDING}/{Path(rel).name}"
    if not tracked(root, rel) and _move(root / rel, root / target):
        head = (
            f"memkit: moved {rel} to {target} for review: it contradicts live memory, and "
            "an atom from outside management (or a decision or architecture atom) must not "
            "become a second truth. Edit it there; a management member approves it with "
            "`memkit review approve`."
        )
    else:
        head = (
            f"memkit: {rel} contradicts live memory; settle it with `supersedes:`, or move it "
            f"to {target} for review (the commit will refuse it as it is, MK106)."
        )
    return {"decision": "block", "reason": head + "\n" + "\n".join(lines)}


def _move(source: Path, target: Path) -> bool:
    """Rename without replacing anything: a link first (fails if the target exists)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:
        return False
    source.unlink()
    return True
