"""The `timeline` tool: who added, changed, moved or removed which atom, when, from git history,
oldest first; episodic session summaries are atoms in `episodic/` and appear among them.

Atom files written but not committed yet (a `save` that stages nothing) come last, marked as
such. Only atoms of scopes this person may read are listed; an episodic summary only to the
person who committed it. Titles come from the index (what validation admitted); a file that is
not there (removed, or refused) is named by its path only. Every line is masked, file names
included.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memkit.atom import SCOPE_DIRS, id_from_path, scope_from_path
from memkit.git import GitError, run
from memkit.recall.masking import mask

MAX_COMMITS = 5_000
GIT_TIMEOUT = 20.0
_ACTIONS = {
    "A": "added",
    "M": "changed",
    "D": "removed",
    "T": "changed",
    "R": "moved",
    "C": "copied",
}


@dataclass(frozen=True)
class Event:
    when: str  # ISO 8601 author date, or "uncommitted"
    who: str
    email: str
    action: str
    path: str
    old_path: str = ""
    subject: str = ""
    commit: str = ""

    @property
    def id(self) -> str:
        return id_from_path(self.path)


def _git(root: Path, *args: str) -> str:
    """git's answer, or "" when there is none: a timeline with nothing in it is still one."""
    try:
        return run(root, *args, timeout=GIT_TIMEOUT).decode("utf-8", "replace")
    except GitError:
        return ""


def history(root: Path, *, since: str | None = None, until: str | None = None) -> list[Event]:
    """Committed changes to atom files, oldest first."""
    args = ["log", "-z", "-M", "--name-status", f"--max-count={MAX_COMMITS}"]
    args.append("--format=%x1e%H%x1f%aI%x1f%an%x1f%ae%x1f%s")
    if since:
        args.append(f"--since={since}T00:00:00")
    if until:
        args.append(f"--until={until}T23:59:59")
    raw = _git(root, *args, "--", *SCOPE_DIRS)
    events: list[Event] = []
    for chunk in raw.split("\x1e")[1:]:
        head, _, rest = chunk.partition("\0")
        fields = head.split("\x1f")
        if len(fields) < 5:
            continue
        commit, when, who, email, subject = fields[:5]
        tokens = rest.lstrip("\n").split("\0")
        i = 0
        while i < len(tokens) and tokens[i]:
            status = tokens[i].lstrip("\n")
            kind = status[:1]
            if kind in ("R", "C") and i + 2 < len(tokens):
                old, new = tokens[i + 1], tokens[i + 2]
                i += 3
            else:
                old, new = "", tokens[i + 1] if i + 1 < len(tokens) else ""
                i += 2
            if scope_from_path(new) is None:
                continue
            action = _ACTIONS.get(kind, "changed")
            if kind == "R" and old.startswith("shared/_pending/") and new.startswith("shared/"):
                action = "approved (moved out of review)"
            events.append(Event(when, who, email.lower(), action, new, old, subject, commit[:10]))
    events.reverse()
    return events


def uncommitted(root: Path, email: str) -> list[Event]:
    """Atom files changed in the working tree (staged or not, new files too)."""
    raw = _git(root, "status", "--porcelain", "-z", "--untracked-files=all", "--", *SCOPE_DIRS)
    tokens = raw.split("\0")
    events: list[Event] = []
    i = 0
    while i < len(tokens) and tokens[i]:
        code, path = tokens[i][:2], tokens[i][3:]
        i += 2 if "R" in code else 1  # a rename is followed by its old path
        if scope_from_path(path) is None:
            continue
        if "?" in code or "A" in code:
            action = "added"
        elif "D" in code:
            action = "removed"
        else:
            action = "changed"
        events.append(Event("uncommitted", "you", email, action, path))
    return events


def select(shown: list[Event], *, around: str | None, limit: int) -> list[Event]:
    """Around an atom (its own history and the changes just before and after its last one),
    or the latest `limit`."""
    if around is None:
        return shown[-limit:]
    own = [i for i, e in enumerate(shown) if around in (e.id, id_from_path(e.old_path or "x"))]
    if not own:
        return []
    half = max(limit // 2, 1)
    last = own[-1]
    keep = set(own) | set(range(max(0, last - half), min(len(shown), last + half + 1)))
    return [e for i, e in enumerate(shown) if i in keep]


def render(events: list[Event], titles: Callable[[str], tuple[str, str] | None]) -> str:
    """One line per event: when · who · action · id (type) — title · path · "subject"."""
    lines = []
    for e in events:
        known = titles(e.path)
        what = f"{e.id} ({known[1]}) — {known[0]}" if known else e.id
        where = f"{e.old_path} → {e.path}" if e.old_path else e.path
        who = e.who if e.when == "uncommitted" else f"{e.who} <{e.email}>"
        when = e.when.replace("T", " ")[:16] if e.when != "uncommitted" else "not committed"
        kind = " [episodic summary]" if e.path.startswith("episodic/") else ""
        line = f"- {when} · {who} · {e.action} · {what}{kind} · {where}"
        if e.subject:
            line += f' · "{e.subject[:120]}"'
        # The whole line: a file name (so the id and path) can hold a token too, committed
        # past the hooks or still a draft.
        lines.append(mask(line))
    return "\n".join(lines)
