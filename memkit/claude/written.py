"""PostToolUse, after a valid atom file was written: may it stand in live memory as it is?

The same write checks as pre-commit and `memkit add` (`memkit.audit.write`, and the orders held
for review). A new file that must go through review is moved to `shared/_pending/` at once (it
is Claude's uncommitted draft, and moving it loses nothing); an edit of a tracked atom is left
where it is. Either way Claude is told why: the atom it contradicts and how to settle it
(`supersedes:`), or the sentence a person has to read first.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from memkit.atom.read import read_atom
from memkit.audit.write import PENDING, conflicts, in_shared, remember
from memkit.claude.protocol import context_output
from memkit.config import Config, load_config
from memkit.git import tracked
from memkit.roles import identify
from memkit.safety.injection import held_for_review


def contradiction_check(root: Path, rel: str) -> dict[str, Any] | None:
    config = load_config(root)
    parsed = read_atom(root, rel, config, fast=True)
    atom = parsed.atom
    if atom is None:
        return None
    held = held_check(root, rel, atom.id, parsed.text, config)
    if held is not None:
        return held
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


def held_check(
    root: Path, rel: str, atom_id: str, text: str, config: Config
) -> dict[str, Any] | None:
    """A new atom Claude wrote into live shared memory that reads like an order to the agent
    goes to review at once, as `memkit add` sends it and the commit would hold it (MK204)."""
    if not in_shared(rel) or tracked(root, rel):
        return None
    held = held_for_review(text, config)
    if not held or identify(root).is_management:
        return None
    target = f"{PENDING}/{Path(rel).name}"
    if not _move(root / rel, root / target):
        return None  # the commit holds it instead (MK204), and says how to send it
    return {
        "decision": "block",
        "reason": (
            f"memkit: moved {rel} to {target} for review: it {held[0].what}, and every "
            "teammate's agent reads shared memory, so a person reads it first. If it is a fact "
            "or a rule for people, a management member approves it with `memkit review "
            f"approve {atom_id}`; if it tells agents what to do, rewrite it as a fact."
        ),
    }


def _move(source: Path, target: Path) -> bool:
    """Rename without replacing anything: a link first (fails if the target exists)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:
        return False
    source.unlink()
    return True
