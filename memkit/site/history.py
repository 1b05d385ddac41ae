"""Who changed which atom file when: one `git log` over the memory's folders, renames followed.

Walking the log newest first, a rename maps the file's earlier name to its name today, so an
atom approved out of `shared/_pending/` keeps the history it had while it waited. Review is
read from the same log: a file arriving in `shared/_pending/` was submitted, one moved out of
it into `shared/` approved, into `archive/` rejected.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path

from memkit.atom import PENDING_DIR, SCOPE_DIRS, id_from_path, is_atom_path
from memkit.git import output
from memkit.reviewlog import is_revision
from memkit.safety.secrets import redact_secrets

log = logging.getLogger(__name__)
_RECORD = "\x1e"
_FIELD = "\x1f"


@dataclass(frozen=True)
class Change:
    commit: str
    author: str
    day: str  # YYYY-MM-DD, the author's date
    subject: str  # secrets masked
    kind: str  # added | modified | deleted | renamed | sent to review | approved | rejected


@dataclass(frozen=True)
class Commit:
    commit: str
    author: str
    day: str
    subject: str
    paths: tuple[str, ...]  # atom files today's names, as changed by this commit


@dataclass
class History:
    changes: dict[str, list[Change]] = field(default_factory=lambda: defaultdict(list))
    commits: list[Commit] = field(default_factory=list)  # newest first
    reviews: list[tuple[str, str]] = field(default_factory=list)  # (day, submitted|approved|…)

    def of(self, path: str) -> list[Change]:
        """The file's changes, newest first."""
        return self.changes.get(path, [])


_KINDS = {"A": "added", "M": "modified", "D": "deleted", "R": "renamed", "C": "added"}


def read_history(root: Path) -> History:
    """The history of every file under the scope folders; empty outside git or before the
    first commit."""
    text = output(
        root,
        "-c",
        "core.quotePath=false",
        "log",
        "-M",
        "-z",
        "--name-status",
        f"--format={_RECORD}%H{_FIELD}%an{_FIELD}%aI{_FIELD}%s",
        "--",
        *SCOPE_DIRS,
    )
    history = History()
    if not text:
        return history
    current: dict[str, str] = {}  # a name in an older commit -> the file's name today
    for record in text.split(_RECORD)[1:]:
        head, _, rest = record.partition("\0")
        parts = head.split(_FIELD)
        if len(parts) != 4:
            continue
        sha, author, when, subject = parts
        day = _day(when)
        change_args = (sha, redact_secrets(author), day, redact_secrets(subject))
        names = [n.strip("\n") for n in rest.split("\0")]
        touched: list[str] = []
        gone: list[str] = []  # pending atoms this commit took out of review
        i = 0
        while i < len(names):
            status = names[i]
            if not status:
                i += 1
                continue
            letter = status[0]
            if letter in "RC" and i + 2 < len(names):
                old, new = names[i + 1], names[i + 2]
                i += 3
                today = current.get(new, new)
                kind = _KINDS[letter]
                if letter == "R":
                    current[old] = today
                    kind = _review_move(history, day, old, new) or kind
                history.changes[today].append(Change(*change_args, kind))
                touched.append(today)
                continue
            if i + 1 >= len(names):
                break
            path = names[i + 1]
            i += 2
            today = current.get(path, path)
            history.changes[today].append(Change(*change_args, _KINDS.get(letter, "modified")))
            if letter == "A" and path.startswith(f"{PENDING_DIR}/") and is_atom_path(path):
                history.reviews.append((day, "submitted"))
            if letter == "D" and path.startswith(f"{PENDING_DIR}/") and is_atom_path(path):
                gone.append(path)
            touched.append(today)
        if gone:
            _revisions_approved(history, sha, gone, day)
        history.commits.append(Commit(sha, change_args[1], day, change_args[3], tuple(touched)))
    return history


def _review_move(history: History, day: str, old: str, new: str) -> str:
    """What a move between review and the rest says ("" for an ordinary rename): sent to
    review, approved (out of `shared/_pending/` into `shared/`) or rejected (into
    `archive/`); counted among the reviews."""
    pending = f"{PENDING_DIR}/"
    if not (is_atom_path(old) and is_atom_path(new)):
        return ""
    if new.startswith(pending) and not old.startswith(pending):
        history.reviews.append((day, "submitted"))
        return "sent to review"
    if old.startswith(pending) and not new.startswith(pending):
        verdict = "approved" if new.startswith("shared/") else "rejected"
        history.reviews.append((day, verdict))
        return verdict
    return ""


def _revisions_approved(history: History, sha: str, gone: list[str], day: str) -> None:
    """A commit that takes the proposal `ID-2` out of review and changes `shared/ID.md` wrote
    the proposal over the atom it revises (`memkit review approve`): that change is the
    approval."""
    for proposal in gone:
        new_id = id_from_path(proposal)
        for path, changes in history.changes.items():
            if not path.startswith("shared/") or not is_revision(new_id, id_from_path(path)):
                continue
            if changes and changes[-1].commit == sha and changes[-1].kind == "modified":
                changes[-1] = replace(changes[-1], kind="approved")
                history.reviews.append((day, "approved"))


def _day(when: str) -> str:
    try:
        return dt.datetime.fromisoformat(when).date().isoformat()
    except ValueError:
        return when[:10]
