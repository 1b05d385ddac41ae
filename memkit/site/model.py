"""What the pages are made of: the shown atoms, where each belongs, and the links between them.

Pure: built from what `collect`, `history` and the team's usage read; the renderers only
format it. Links are kept both ways (an atom that supersedes another, and the other's
"superseded by") and only between shown atoms: a link to an atom the site does not show is
counted, never named.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field

from memkit.lifecycle.team import TeamUsage, Use
from memkit.site.collect import Collected, Shown
from memkit.site.history import History

LIVE = "live"
PENDING = "pending"
SUPERSEDED = "superseded"
ARCHIVED = "archived"
EXPIRED = "expired"
RETIRED = (SUPERSEDED, ARCHIVED)


@dataclass
class Links:
    supersedes: list[str] = field(default_factory=list)
    superseded_by: list[str] = field(default_factory=list)
    related: list[str] = field(default_factory=list)  # both ways: it names them, or they it
    hidden: int = 0  # references to atoms the site does not show


@dataclass
class Model:
    atoms: dict[str, Shown]
    status: dict[str, str]
    links: dict[str, Links]
    history: History
    usage: TeamUsage
    today: dt.date
    hidden: dict[str, int]

    def use(self, atom_id: str) -> Use:
        return self.usage.of(atom_id)

    def with_status(self, *statuses: str) -> list[Shown]:
        return [s for i, s in self.atoms.items() if self.status[i] in statuses]


def status_of(shown: Shown, replaced: set[str], ids: set[str], today: dt.date) -> str:
    """Where an atom belongs: waiting for review, retired (superseded or archived), past its
    `expires` date, or live."""
    atom = shown.atom
    if atom.pending:
        return PENDING
    if atom.scope == "archive" or atom.status == "archived":
        return ARCHIVED
    if (
        atom.status == "superseded"
        or atom.id in replaced
        or any(newer in ids for newer in atom.superseded_by)
    ):
        return SUPERSEDED
    if atom.expires and atom.expires < today.isoformat():
        return EXPIRED
    return LIVE


def build_model(collected: Collected, history: History, usage: TeamUsage, today: dt.date) -> Model:
    atoms = collected.atoms
    ids = set(atoms)
    replaced = {
        old
        for s in atoms.values()
        if s.atom.status == "active" and not s.atom.pending
        for old in s.atom.supersedes
    }
    status = {i: status_of(s, replaced, ids, today) for i, s in atoms.items()}
    links: dict[str, Links] = defaultdict(Links)
    for atom_id, shown in atoms.items():
        atom = shown.atom
        mine = links[atom_id]
        for key, back in (("supersedes", "superseded_by"), ("superseded_by", "supersedes")):
            for other in getattr(atom, key):
                if other not in ids:
                    mine.hidden += 1
                    continue
                _add(getattr(mine, key), other)
                _add(getattr(links[other], back), atom_id)
        for other in atom.related:
            if other not in ids:
                mine.hidden += 1
                continue
            _add(mine.related, other)
            _add(links[other].related, atom_id)
    return Model(
        atoms=atoms,
        status=status,
        links={i: links[i] for i in atoms},
        history=history,
        usage=usage,
        today=today,
        hidden=dict(collected.hidden),
    )


def _add(items: list[str], value: str) -> None:
    if value not in items:
        items.append(value)
