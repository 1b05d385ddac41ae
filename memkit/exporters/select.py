"""Which atoms may leave the memory repository as rules files, and in which order.

Exported rules reach every teammate's agent with no hook in between, so the trust invariants
are applied here, once: only atoms `memkit validate` passes without an error; committed
(a draft nobody reviewed stays home), not in shared/_pending/, active, not archived, not
expired, not superseded (by status, by `superseded_by`, or by another atom's `supersedes`);
shared, plus the roles asked for and the exporter's own personal atoms only when asked;
never episodic summaries or another person's atoms. A body that still shows a secret or a
`<private>` block is left out too.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memkit.atom import SCOPE_DIRS, Atom
from memkit.atom.read import read_atom
from memkit.checks.validate import validate
from memkit.config import Config, load_config
from memkit.git import output
from memkit.repo import list_atom_files
from memkit.roles import identify
from memkit.safety.private import PRIVATE
from memkit.safety.secrets import find_secrets, redact_secrets

CONFIDENCE_RANK = {"fixed": 0, "observed": 1, "tentative": 2}
# What a teammate without memkit most needs first: traps, then settled decisions, then how-tos.
TYPE_RANK = {
    "pitfall": 0,
    "decision": 1,
    "procedure": 2,
    "architecture": 3,
    "preference": 4,
    "fact": 5,
}


@dataclass
class Selection:
    atoms: list[Atom] = field(default_factory=list)  # best first
    left_out: Counter[str] = field(default_factory=Counter)  # reason → count


def rank(atom: Atom) -> tuple[int, int, int, str]:
    """Sort key: confidence tier, type, newest first, id."""
    try:
        day = dt.date.fromisoformat(atom.created).toordinal()
    except ValueError:
        day = 0
    return (
        CONFIDENCE_RANK.get(atom.confidence, 3),
        TYPE_RANK.get(atom.type, 6),
        -day,
        atom.id,
    )


def _scope_allowed(atom: Atom, scopes: Sequence[str], me: str) -> str:
    """'' when the atom's scope may be exported, else the reason it may not."""
    if atom.scope == "shared":
        return ""
    if atom.scope == "episodic":
        return "episodic"
    if atom.scope.startswith("personal:"):
        if atom.scope != f"personal:{me}":
            return "personal"
        return "" if "personal" in scopes else "scope"
    return "" if atom.scope in scopes else "scope"


def _unsafe(atom: Atom) -> str:
    text = f"{atom.id}\n{atom.title}\n{atom.body}"
    if PRIVATE.search(text):
        return "private"
    if next(find_secrets(text), None) is not None:
        return "secret"
    return ""


def uncommitted(root: Path) -> set[str]:
    """Atom files that differ from the last commit (new, changed, staged or not): drafts
    nobody has reviewed yet. Ignored files (a person's own atoms) are not among them."""
    out = output(root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *SCOPE_DIRS)
    if not out:
        return set()
    paths: set[str] = set()
    entries = out.split("\0")
    for i, entry in enumerate(entries):
        if len(entry) > 3 and entry[2] == " ":
            paths.add(entry[3:])
            if entry[0] in "RC" and i + 1 < len(entries):  # a rename: the old name follows
                paths.add(entries[i + 1])
    return paths


def select(
    root: Path,
    *,
    scopes: Sequence[str] = (),
    config: Config | None = None,
    today: dt.date | None = None,
    project: str | None = None,
) -> Selection:
    """The atoms an export may write, best first, and why the others were left out. An atom
    about one code project (`project:`) goes into that project only (`project`: the name of
    the one exported into)."""

    config = config or load_config(root)
    today = today or dt.date.today()
    refused = {f.path for f in validate(root, config=config) if f.is_error}
    drafts = uncommitted(root)
    me = identify(root).user
    out = Selection()
    parsed: list[Atom] = []
    for relpath in list_atom_files(root):
        atom = read_atom(root, relpath, config).atom
        # Findings name files redacted: a file named after a secret is matched that way.
        if atom is None or relpath in refused or redact_secrets(relpath) in refused:
            out.left_out["invalid"] += 1
        elif relpath in drafts:
            out.left_out["uncommitted"] += 1
        else:
            parsed.append(atom)
    replaced = {old for a in parsed if a.status == "active" for old in a.supersedes}
    ids = {a.id for a in parsed}
    for atom in parsed:
        reason = (
            "pending"
            if atom.pending
            else "archived"
            if atom.scope == "archive" or atom.status == "archived"
            else "superseded"
            if atom.status == "superseded"
            or atom.id in replaced
            or any(newer in ids for newer in atom.superseded_by)
            else "expired"
            if atom.expires and atom.expires < today.isoformat()
            else "project"
            if atom.project and project is not None and atom.project != project
            else _scope_allowed(atom, scopes, me) or _unsafe(atom)
        )
        if reason:
            out.left_out[reason] += 1
        else:
            out.atoms.append(atom)
    out.atoms.sort(key=rank)
    return out
