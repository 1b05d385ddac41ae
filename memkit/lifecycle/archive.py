"""`memkit archive`: memory that ages out, into `archive/`, from where it can come back.

Suggested: live atoms of the archived tiers whose effectiveness (Laplace x half-life decay)
is below `below` and that nobody used for `unused_days`; and every live atom past its
`expires` date (episodic session summaries above all: the sweep). Applying moves the file to
`archive/<its path>` (`git mv` when tracked), with `status: archived` and the reason in
`archived_reason:`; restoring undoes both. An archived atom stays searchable
(`memkit search --all`) and is never injected.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memkit.atom import SCOPE_DIRS, id_from_path, is_atom_path, scope_from_path
from memkit.atom.write import update_frontmatter
from memkit.changeset import reviewed_point
from memkit.errors import MemkitError
from memkit.files import write_atomic
from memkit.git import ignored, move, output, run
from memkit.lifecycle.catalog import Entry
from memkit.lifecycle.score import day_of, effectiveness, parse_day
from memkit.lifecycle.settings import ArchiveSettings
from memkit.lifecycle.team import TeamUsage

ARCHIVE = "archive/"
EXPIRED = "expired"
DECAYED = "decayed"
_EXCLUDE = ".git/info/exclude"


@dataclass(frozen=True)
class Suggestion:
    entry: Entry
    kind: str  # EXPIRED | DECAYED
    reason: str
    unused_days: int | None
    effectiveness: float | None

    def as_json(self) -> dict[str, Any]:
        shown_id, shown_path = self.entry.shown
        return {
            "id": shown_id,
            "path": shown_path,
            "kind": self.kind,
            "reason": self.reason,
            "unused_days": self.unused_days,
            "effectiveness": None if self.effectiveness is None else round(self.effectiveness, 4),
        }


def unused_days(entry: Entry, team: TeamUsage, today: dt.date) -> int | None:
    """Days since the last use; for an atom never used, since it was written (or updated) or
    since usage began to be counted, whichever is later. None when nothing is known: no
    usage counted at all, or no readable date."""
    last = team.of(entry.id).tally.last
    if last is not None:
        return (today - day_of(last)).days
    if team.since is None:
        return None  # nobody has counted anything: unused is unknown, not proven
    days = [d for d in (parse_day(entry.created), parse_day(entry.updated)) if d is not None]
    if not days:
        return None
    return (today - max(*days, day_of(team.since))).days


def is_expired(entry: Entry, today: dt.date) -> bool:
    day = parse_day(entry.expires) if entry.expires else None
    return day is not None and day < today


def suggestions(
    entries: Iterable[Entry], team: TeamUsage, settings: ArchiveSettings, today: dt.date
) -> list[Suggestion]:
    out = []
    for entry in entries:
        if not entry.is_live:
            continue
        idle = unused_days(entry, team, today)
        if is_expired(entry, today):
            out.append(Suggestion(entry, EXPIRED, f"expired {entry.expires}", idle, None))
            continue
        if entry.confidence not in settings.tiers or idle is None:
            continue
        tally = team.of(entry.id).tally
        score = effectiveness(tally.confirmed, tally.contradicted, idle, settings.half_life_days)
        if idle >= settings.unused_days and score < settings.below:
            never = "never used in" if tally.last is None else "unused for"
            reason = (
                f"effectiveness {score:.2f} < {settings.below:.2f}, {never} {idle} days "
                f"(confirmed {tally.confirmed}, contradicted {tally.contradicted})"
            )
            out.append(Suggestion(entry, DECAYED, reason, idle, score))
    return sorted(out, key=lambda s: (s.kind != EXPIRED, s.effectiveness or 0.0, s.entry.id))


def _move(root: Path, source: str, target: str) -> None:
    """`git mv` for a tracked file (the edit staged with it); a plain rename otherwise. A file
    git ignores (a personal atom) stays ignored where it lands: listed in .git/info/exclude,
    which is this clone's alone and never committed."""
    # git matches ignore patterns by path: the source's is asked after it has moved.
    if not move(root, source, target) and ignored(root, source) and not ignored(root, target):
        _exclude(root, f"/{target}", add=True)


def _exclude(root: Path, line: str, *, add: bool) -> None:
    common = output(root, "rev-parse", "--git-common-dir")
    if common is None:
        return
    path = (root / common / "info" / "exclude").resolve()
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    lines = text.splitlines()
    if add and line not in lines:
        lines.append(line)
    elif not add and line in lines:
        lines.remove(line)
    else:
        return
    write_atomic(path, "\n".join(lines) + "\n")


def archive_atom(root: Path, entry: Entry, reason: str) -> str:
    """Move one atom to the archive; returns its new path."""
    if entry.scope == "archive":
        raise MemkitError(f"`{entry.id}` is already archived ({entry.path})")
    if entry.pending:
        raise MemkitError(
            f"`{entry.id}` waits for review ({entry.path}); `memkit review reject` archives it"
        )
    target = ARCHIVE + entry.path
    if (root / target).exists():
        raise MemkitError(f"{target} already exists; restore or remove it first")
    try:
        update_frontmatter(root / entry.path, {"status": "archived", "archived_reason": reason})
    except (OSError, ValueError) as exc:
        raise MemkitError(f"{entry.path}: {exc}") from exc
    _move(root, entry.path, target)
    return target


def restore_atom(root: Path, entry: Entry) -> str:
    """Bring an archived atom back where it was; returns its path."""
    if entry.scope != "archive":
        raise MemkitError(f"`{entry.id}` is not archived ({entry.path})")
    target = entry.path.removeprefix(ARCHIVE)
    place = scope_from_path(target)
    if place is None or place[0] == "archive" or place[1]:
        raise MemkitError(
            f"{entry.path} was not archived from a scope folder (archive/rejected/ holds "
            "atoms refused in review); move it by hand if it should come back"
        )
    if (root / target).exists():
        raise MemkitError(f"{target} already exists; an atom there has taken its place")
    # `active` is the default: left unsaid, as most atoms leave it.
    status = "superseded" if entry.superseded_by else None
    try:
        update_frontmatter(root / entry.path, {"status": status, "archived_reason": None})
    except (OSError, ValueError) as exc:
        raise MemkitError(f"{entry.path}: {exc}") from exc
    _move(root, entry.path, target)
    if ignored(root, target):
        _exclude(root, f"/{entry.path}", add=False)
    return target


def put_back_deleted(root: Path, atom_id: str) -> str | None:
    """The atom `atom_id` that a change deletes, put back as it was so that it can be
    archived instead: from HEAD (the commit being made deletes it) or from where review last
    saw the branch (a commit past the hooks did). Its path, or None when there is none."""
    for rev in dict.fromkeys(["HEAD", reviewed_point(root) or "HEAD"]):
        listed = output(root, "ls-tree", "-r", "-z", "--name-only", rev, "--", *SCOPE_DIRS)
        for path in (listed or "").split("\0"):
            if (
                is_atom_path(path)
                and not path.startswith(ARCHIVE)
                and id_from_path(path) == atom_id
                and not (root / path).exists()
            ):
                run(root, "restore", f"--source={rev}", "--staged", "--worktree", "--", path)
                return path
    return None
