"""What changed in the memory in the seven days up to the build: read from git's history.

A day is a commit's author date (what `git log` shows a person). An atom is *new* on the day
it arrived where the team reads it: the commit that added it, or the approval that took it out
of `shared/_pending/`. It is *superseded* on the day its own file was marked superseded (what
`memkit validate --fix` writes), or, when its file says nothing, on the day the atom that
replaces it arrived. An atom not committed yet has no day and is in no week.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from memkit.site.history import Change
from memkit.site.model import ARCHIVED, EXPIRED, LIVE, SUPERSEDED, Model

DAYS = 7
# What a team reads first among the changes: decisions, then how things are built.
FIRST = ("decision", "architecture")


@dataclass(frozen=True)
class Event:
    atom_id: str
    day: str  # YYYY-MM-DD
    what: str  # new | approved | edited | revised | superseded | archived | rejected
    others: tuple[str, ...] = ()  # superseded: the atoms replacing it; new: the ones it replaces


@dataclass
class Week:
    start: str  # the first day counted (YYYY-MM-DD), inclusive
    end: str  # the build's day
    new: list[Event] = field(default_factory=list)  # arrived (added or approved)
    superseded: list[Event] = field(default_factory=list)
    edited: list[Event] = field(default_factory=list)  # edited, or revised through review
    retired: list[Event] = field(default_factory=list)  # archived or rejected
    last_change: str = ""  # the newest day any shown atom changed, this week or not

    @property
    def empty(self) -> bool:
        return not (self.new or self.superseded or self.edited or self.retired)


def arrival(changes: list[Change]) -> tuple[str, str]:
    """(day, how) an atom arrived where the team reads it: its newest approval out of
    review (not an approved change to it, which is an edit), else its first commit; ("", "")
    when it was never committed. `changes`: newest first, as `History.of` gives them."""
    for change in changes:
        if change.kind == "approved" and not change.revision:
            return change.day, "approved"
    if not changes:
        return "", ""
    return changes[-1].day, "new"


def week_of(model: Model, days: int = DAYS) -> Week:
    end = model.today
    start = (end - dt.timedelta(days=days - 1)).isoformat()
    week = Week(start=start, end=end.isoformat())

    def within(day: str) -> bool:
        return bool(day) and start <= day <= week.end

    arrived: dict[str, str] = {}
    for atom_id, shown in model.atoms.items():
        arrived[atom_id] = arrival(model.history.of(shown.atom.path))[0]
    for atom_id, shown in model.atoms.items():
        status = model.status[atom_id]
        changes = model.history.of(shown.atom.path)
        if not changes:
            continue
        week.last_change = max(week.last_change, changes[0].day)
        if status in (LIVE, EXPIRED):
            day, how = arrival(changes)
            if within(day):
                replaces = tuple(model.links[atom_id].supersedes)
                week.new.append(Event(atom_id, day, how, replaces))
            elif within(changes[0].day):
                what = "revised" if changes[0].revision else "edited"
                week.edited.append(Event(atom_id, changes[0].day, what))
        elif status == SUPERSEDED:
            newer = tuple(model.links[atom_id].superseded_by)
            if shown.atom.status == "superseded":
                day = changes[0].day
            else:
                day = max((arrived.get(n, "") for n in newer), default="")
            if within(day):
                week.superseded.append(Event(atom_id, day, "superseded", newer))
        elif status == ARCHIVED and within(changes[0].day):
            rejected = changes[0].kind == "rejected" or shown.atom.path.startswith(
                "archive/rejected/"
            )
            what = "rejected" if rejected else "archived"
            week.retired.append(Event(atom_id, changes[0].day, what))
    for events in (week.new, week.superseded, week.edited, week.retired):
        events.sort(key=lambda e: (_rank(model, e.atom_id), _newest_first(e.day), e.atom_id))
    return week


def _rank(model: Model, atom_id: str) -> int:
    kind = model.atoms[atom_id].atom.type
    return FIRST.index(kind) if kind in FIRST else len(FIRST)


def _newest_first(day: str) -> tuple[int, ...]:
    return tuple(-int(part) for part in day.split("-") if part.isdigit())
