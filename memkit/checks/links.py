"""Links a change breaks: deleting, archiving or unapproving an atom that other atoms name
(MK024).

An atom whose `related:`, `supersedes:` or `superseded_by:` names an id that no longer exists
is refused by validation (MK010), so it silently drops out of the index and recall; an atom
whose `related:` names one that was archived, or moved back into `shared/_pending/`, points
at memory nobody is served. Neither file
is in the change (pre-commit passes only files that still exist), so the whole change is
judged here, at commit (hook `memkit-roles`) and in `memkit ci`, against the tree it makes:
the staged one, or the pull request's head.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from memkit.atom import REFERENCE_KEYS, SCOPE_DIRS, is_atom_path, scope_from_path
from memkit.atom.read import parse_atom_bytes
from memkit.changeset import Change, read_blobs
from memkit.config import Config
from memkit.findings import Finding
from memkit.git import output

ARCHIVE = "archive/"


@dataclass(frozen=True)
class Removal:
    id: str
    path: str  # where it was
    # Kept but out of recall: moved into archive/, or into shared/_pending/ (`pending`);
    # otherwise deleted, or moved out of memory.
    archived: bool
    pending: bool = False


def removals(changes: Sequence[Change]) -> list[Removal]:
    """Live atoms the change takes away: deleted, moved out of memory, into archive/ or
    into review (shared/_pending/)."""
    live_after = {
        PurePosixPath(c.after).stem
        for c in changes
        if c.after is not None
        and is_atom_path(c.after)
        and not c.after.startswith(ARCHIVE)
        and not _pending(c.after)
    }
    found = []
    for change in changes:
        before = change.before
        if before is None or before == change.after or not is_atom_path(before):
            continue
        scope = scope_from_path(before)
        if before.startswith(ARCHIVE) or scope is None or scope[1]:  # archived, or pending
            continue
        atom_id = PurePosixPath(before).stem
        after = change.after
        if atom_id in live_after:
            continue  # moved within memory, or deleted and added again elsewhere
        archived = after is not None and after.startswith(ARCHIVE) and is_atom_path(after)
        pending = after is not None and _pending(after)
        found.append(Removal(atom_id, before, archived or pending, pending))
    return found


def _pending(path: str) -> bool:
    scope = scope_from_path(path)
    return scope is not None and scope[1]


def _referrers(root: Path, ids: Sequence[str], tree: str) -> list[str]:
    """Atom files of `tree` (a revision; "" for the staged tree) that mention any of `ids`:
    git grep, in C; what each names is read next."""
    live = [d for d in SCOPE_DIRS if f"{d}/" != ARCHIVE]
    where = [tree] if tree else ["--cached"]
    patterns = [arg for i in ids for arg in ("-e", i)]
    listed = output(root, "grep", "-l", "-z", "-F", "-w", *patterns, *where, "--", *live)
    if not listed:
        return []
    prefix = f"{tree}:" if tree else ""
    paths = [p.removeprefix(prefix) for p in listed.split("\0") if p]
    return [p for p in paths if is_atom_path(p)]


def link_findings(
    root: Path, changes: Sequence[Change], config: Config, tree: str
) -> list[Finding]:
    """MK024 for every live atom of the tree the change makes that names an atom the change
    deletes (any reference key) or archives (`related:`; naming it in `supersedes:` is how it
    is retired)."""
    gone = {r.id: r for r in removals(changes)}
    if not gone:
        return []
    referrers = _referrers(root, sorted(gone), tree)
    removed_paths = {r.path for r in gone.values()}
    names = {p: f"{tree}:{p}" if tree else f":{p}" for p in referrers if p not in removed_paths}
    blobs = read_blobs(root, names.values())
    findings = []
    for path, name in names.items():
        if name not in blobs:
            continue
        atom = parse_atom_bytes(path, blobs[name], config).atom
        if atom is None or atom.status == "archived":
            continue
        for key in REFERENCE_KEYS:
            for ref in getattr(atom, key):
                removal = gone.get(ref)
                if removal is None or (removal.archived and key != "related"):
                    continue
                findings.append(
                    Finding(path, atom.line_of(key), 1, "MK024", _message(atom.id, key, removal))
                )
    return findings


def _message(referrer: str, key: str, removal: Removal) -> str:
    if removal.pending:
        return (
            f"`related` names `{removal.id}`, which this change moves into shared/_pending/ "
            f"({removal.path}): it is not served until approved again; point the link at an "
            "atom that stays, or remove it"
        )
    if removal.archived:
        return (
            f"`related` names `{removal.id}`, which this change archives ({removal.path}): "
            f"point the link at the atom that replaces it, or remove it; if `{referrer}` "
            f"replaces it, name it in `supersedes:` instead"
        )
    # Archiving is the step for a link that retires it; a `related:` link to an archived
    # atom is refused too, so there the edit is the step.
    keep = (
        f"archive it instead (`memkit archive --apply {removal.id}` puts it back and moves it "
        "to archive/, where a superseded atom stays)"
        if key != "related"
        else f"if `{referrer}` replaces it, name it in `supersedes:` instead of `related:`"
    )
    return (
        f"`{key}` names `{removal.id}`, which this change deletes ({removal.path}): "
        f"`{referrer}` would be refused (MK010) and drop out of recall; remove `{removal.id}` "
        f"from `{key}`, or {keep}"
    )
