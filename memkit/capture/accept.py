"""A person's decisions on candidates: accept (through exactly the path of `memkit add`),
reject, and undo an atom a candidate wrote.

Accepting builds a `Draft` from the candidate and hands it to `memkit.add.add_atom`: the write
gate, duplicates, contradictions, roles, sensitive types to `shared/_pending/`. What was
written is remembered (path and a digest of its content), so `undo` removes exactly that file,
and refuses to remove one that was edited since (unless forced). The reason for a reject or an
undo stays with the candidate; neither statement is offered again.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

from memkit.add import AddOutcome, Draft, add_atom
from memkit.capture import queue
from memkit.capture.queue import Candidate
from memkit.capture.terms import accepted_triggers
from memkit.errors import MemkitError
from memkit.git import tracked
from memkit.index import IndexUnavailable, refresh

log = logging.getLogger(__name__)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def draft_of(
    cand: Candidate,
    *,
    scope: str | None = None,
    atom_type: str | None = None,
    text: str | None = None,
) -> Draft:
    """The atom a candidate proposes, with the person's changes."""
    body = text if text is not None else cand.statement
    if cand.detail.get("error") and text is None:
        body += f"\n\n- Error: {cand.detail['error']}\n- What worked: `{cand.detail['fix']}`"

    kind = atom_type or cand.type
    return Draft(
        text=body,
        type=kind,
        # As `memkit add` decides it (issue 43): a pitfall that passes the gate is observed.
        confidence=None,
        scope=scope or cand.scope,
        # The statement's topic words too: a plain question must find what was accepted.
        triggers=accepted_triggers(
            text if text is not None else cand.statement, cand.triggers, kind
        ),
    )


def waiting(root: Path, cid: str) -> Candidate:
    cand = queue.get(root, cid)
    if cand.status != queue.PENDING_STATUS:
        where = f" as {cand.atom['path']}" if cand.atom.get("path") else ""
        raise MemkitError(f"candidate `{cid}` was already {cand.status}{where}")
    return cand


def record(root: Path, cand: Candidate, outcome: AddOutcome, status: str) -> Candidate:
    """Remember what a written candidate became."""
    atom = {"id": outcome.id, "path": outcome.path, "sha256": digest(outcome.content)}
    return queue.settle(root, cand, status, atom=atom)


def accept(
    root: Path,
    cid: str,
    *,
    scope: str | None = None,
    atom_type: str | None = None,
    text: str | None = None,
    dry_run: bool = False,
) -> tuple[Candidate, AddOutcome]:
    """Write candidate `cid` as an atom through `add_atom`; it leaves the queue only when the
    atom was written (a refusal keeps it waiting, with the findings to act on)."""
    cand = waiting(root, cid)
    outcome = add_atom(
        root, draft_of(cand, scope=scope, atom_type=atom_type, text=text), dry_run=dry_run
    )
    if outcome.written:
        cand = record(root, cand, outcome, queue.ACCEPTED)
        refresh_index(root)
    return cand, outcome


def write_personal(root: Path, cand: Candidate) -> AddOutcome:
    """The router's upper band, when `write_personal` is on: the user's own folder, through
    the same checks."""
    outcome = add_atom(root, draft_of(cand, scope="personal"))
    if outcome.written:
        record(root, cand, outcome, queue.WRITTEN)
    return outcome


def reject(root: Path, cid: str, reason: str) -> Candidate:
    return queue.settle(root, waiting(root, cid), queue.REJECTED, reason=reason)


def undo(root: Path, ident: str, reason: str, *, force: bool = False) -> tuple[Candidate, str]:
    """Take back the atom candidate `ident` wrote (`ident`: the candidate's id or the atom's).
    Returns the candidate and what was done with the file."""
    try:
        cand: Candidate | None = queue.get(root, ident)
    except MemkitError:
        cand = queue.by_atom(root, ident)
    if cand is None:
        raise MemkitError(
            f"`{ident}` is neither a capture candidate nor an atom one wrote; "
            "`memkit candidates list --all` shows what capture wrote"
        )
    if cand.status not in (queue.ACCEPTED, queue.WRITTEN) or not cand.atom.get("path"):
        raise MemkitError(f"candidate `{cand.id}` wrote no atom (it is {cand.status})")
    rel = cand.atom["path"]
    path = root / rel
    if not path.is_file():
        done = "the file was already gone"
    else:
        if digest(path.read_text(encoding="utf-8")) != cand.atom.get("sha256") and not force:
            raise MemkitError(
                f"{rel} was edited since it was written from candidate `{cand.id}`; "
                "`--force` removes it anyway"
            )
        path.unlink()
        done = f"removed {rel}"
        if tracked(root, rel):
            done += "; it was committed: commit its removal (`git commit -- " + rel + "`)"
    cand = queue.settle(root, cand, queue.UNDONE, reason=reason)
    refresh_index(root)
    return cand, done


def refresh_index(root: Path) -> None:
    """The next prompt, with or without the warm engine, finds (or no longer finds) the atom."""
    try:
        refresh(root, quiet=True)
    except (IndexUnavailable, OSError) as exc:
        log.warning("the index was not refreshed (%s); `memkit index` does it", exc)
