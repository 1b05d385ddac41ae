"""What changed since you were last here: SessionStart's few lines on what the team added,
approved, superseded or retired in the memory since this clone's last session.

This clone remembers the memory's commit at its last session (`.memkit/last-session.json`,
local). When a session starts at another commit (a pull brought changes), the commits in
between that others wrote are read (`git log`, one call) and summed up: first the atoms that
replace ones this person used (the usage log), then what was approved out of review, added,
superseded, archived, changed. Nothing when nothing changed, or only this person's own
commits; never more than MAX_LINES lines. The first session of a clone only notes where it is.
"""

from __future__ import annotations

import json
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memkit.files import write_atomic
from memkit.git import name_status, output
from memkit.recall.fence import attribute, neutralise
from memkit.recall.usage import NO_HISTORY
from memkit.recall.visibility import readable

log = logging.getLogger(__name__)
LAST = ".memkit/last-session.json"
MAX_LINES = 6  # of news, besides the heading and the pointer to more
MAX_NAMES = 4  # ids named on one line
SOURCES = ("startup", "resume", "")  # a new session; not /clear nor a compaction
_ATOM_DIRS = ("shared", "roles", "personal", "episodic", "archive")


@dataclass
class Changes:
    authors: list[str] = field(default_factory=list)
    commits: int = 0
    added: list[str] = field(default_factory=list)  # atom paths
    approved: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    archived: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


def _head(root: Path) -> str | None:
    """HEAD's commit, read from `.git` as git keeps it (a branch's file, or packed-refs):
    every SessionStart asks, and a `git` process costs it 5-20 ms. Anything else (a worktree,
    a memory folder inside a code repository) asks git."""
    git = root / ".git"
    try:
        head = (git / "HEAD").read_text(encoding="utf-8").strip()
        if _SHA.fullmatch(head):
            return head
        if head.startswith("ref: refs/"):
            ref = head[5:]
            loose = git / ref
            if loose.is_file():
                found = loose.read_text(encoding="utf-8").strip()
                return found if _SHA.fullmatch(found) else None
            for line in (git / "packed-refs").read_text(encoding="utf-8").splitlines():
                sha, _, name = line.partition(" ")
                if name == ref and _SHA.fullmatch(sha):
                    return sha
    except OSError:
        pass
    return output(root, "rev-parse", "--verify", "--quiet", "HEAD")


def _me(root: Path) -> str:
    return (
        (os.environ.get("GIT_AUTHOR_EMAIL") or output(root, "config", "user.email") or "")
        .strip()
        .lower()
    )


def read_changes(root: Path, last: str, head: str) -> Changes | None:
    """The atom files others' commits in `last..head` added, changed, moved or removed; None
    when `last` is no commit of this repository any more."""
    listed = output(
        root,
        "-c",
        "core.quotePath=false",
        "log",
        "-M",
        "--name-status",
        "-z",
        "--format=%x01%ae%x00%an",
        f"{last}..{head}",
        "--",
        *_ATOM_DIRS,
    )
    if listed is None:
        return None
    me = _me(root)
    out = Changes()
    seen: set[str] = set()
    for chunk in listed.split("\x01")[1:]:
        email, _, rest = chunk.partition("\x00")
        name, _, files = rest.partition("\n")
        name = name.strip("\x00 ")
        if email.strip().lower() == me:
            continue  # this person's own commits are no news to them
        out.commits += 1
        if name.strip() and name.strip() not in out.authors:
            out.authors.append(name.strip())
        for letter, path, new in name_status(files):
            if new:  # moved: out of review, into the archive, or elsewhere
                if new in seen:
                    continue
                seen.add(new)
                if path.startswith("shared/_pending/") and not new.startswith(
                    ("shared/_pending/", "archive/")
                ):
                    out.approved.append(new)
                elif new.startswith("archive/"):
                    out.archived.append(new)
                else:
                    out.changed.append(new)
                continue
            if path in seen:
                continue
            seen.add(path)  # newest first: a file's latest change says what it is now
            kind = {"A": out.added, "M": out.changed, "D": out.removed}.get(letter, out.changed)
            kind.append(path)
    return out


def _entries(reader: Any, paths: list[str]) -> list[dict[str, Any]]:
    rows = [reader.row_of.get(p) for p in paths]
    return [reader.atoms[r] for r in rows if r is not None]


def _names(entries: list[dict[str, Any]]) -> str:
    shown = [f"{e['id']}" for e in entries[:MAX_NAMES]]
    more = len(entries) - MAX_NAMES
    return ", ".join(shown) + (f" (+{more} more)" if more > 0 else "")


def news(
    root: Path, reader: Any, changes: Changes, usage: Any, scopes: frozenset[str] | None
) -> list[str]:
    """The lines of the block (heading first), or [] when none of it is for this person."""

    def mine(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [e for e in entries if readable(e["scope"], scopes, str(e.get("author") or ""))]

    new = mine(_entries(reader, changes.added))
    approved = mine(_entries(reader, changes.approved))
    changed = mine(_entries(reader, changes.changed))
    archived = mine(_entries(reader, changes.archived))
    replacing = [
        e
        for e in new + approved + changed
        if e.get("supersedes") and e["status"] == "active" and not e["pending"]
    ]
    olds = sorted({old for e in replacing for old in e["supersedes"]})
    used = (
        {a for a, level in usage.activation(olds).items() if level > NO_HISTORY} if olds else set()
    )
    lines: list[str] = []
    for entry in sorted(replacing, key=lambda e: not (set(e["supersedes"]) & used)):
        olds_of = ", ".join(entry["supersedes"][:MAX_NAMES])
        yours = " (you used it)" if set(entry["supersedes"]) & used else ""
        lines.append(f"- {entry['id']} replaces {olds_of}{yours}: {entry['title']}")
    taken = {e["id"] for e in replacing}
    groups = [
        ("approved from review", [e for e in approved if e["id"] not in taken]),
        ("added", [e for e in new if e["id"] not in taken and not e["pending"]]),
        ("waiting for review", [e for e in new if e["pending"]]),
        ("archived", archived),
        ("changed", [e for e in changed if e["id"] not in taken]),
    ]
    for label, entries in groups:
        if entries:
            lines.append(f"- {label}: {_names(entries)}")
    if changes.removed and len(lines) < MAX_LINES:
        lines.append(f"- removed: {len(changes.removed)} atom file(s)")
    if not lines:
        return []
    who = ", ".join(changes.authors[:3]) + (" and others" if len(changes.authors) > 3 else "")
    more = len(lines) - MAX_LINES
    lines = lines[:MAX_LINES] + ([f"- … and {more} more line(s)"] if more > 0 else [])
    head = (
        f"Since your last session, {changes.commits} commit(s) by {who or 'your team'} changed "
        "the memory:"
    )
    tail = "`memkit show ID` for any of them; `git log` in the memory repository for the rest."
    return [head, *lines, tail]


def since_block(
    root: Path, reader: Any, payload: dict[str, Any], usage: Any, scopes: frozenset[str] | None
) -> list[str]:
    """The fenced block for SessionStart (or []), and this clone's commit noted as seen. It
    never costs the session its index: any failure is logged and says nothing."""
    try:
        return _since_block(root, reader, payload, usage, scopes)
    except Exception:  # a hook handler fails open; the rest of SessionStart still answers
        log.warning("what changed since the last session could not be read", exc_info=True)
        return []


def _since_block(
    root: Path, reader: Any, payload: dict[str, Any], usage: Any, scopes: frozenset[str] | None
) -> list[str]:
    if str(payload.get("source") or "") not in SOURCES:
        return []
    head = _head(root)
    if head is None:
        return []
    try:
        state = json.loads((root / LAST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        state = {}
    last = state.get("head") if isinstance(state, dict) else None
    if last == head:
        return []
    lines: list[str] = []
    if isinstance(last, str):
        changes = read_changes(root, last, head)
        if changes is not None and changes.commits:
            lines = news(root, reader, changes, usage, scopes)
    try:
        write_atomic(root / LAST, json.dumps({"head": head}), durable=False, mode=0o600)
    except OSError:
        return []  # said once only when it can be noted as said
    if not lines:
        return []
    return [
        f'<memkit-index repo="{attribute(root.name)}">',
        *(neutralise(line) for line in lines),
        "</memkit-index>",
    ]
