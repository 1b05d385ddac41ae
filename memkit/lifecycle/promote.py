"""`memkit promote`: atoms whose confirmations cross the thresholds move up a tier.

臨 tentative -> 觀 observed -> 固 fixed. A session confirms an atom when its answer referred to
it, or the agent read it whole, or an atom written in it cites it, and nothing in it
contradicted it (`memkit.recall.evidence`); being injected confirms nothing. An atom is
proposed for `observed` once sessions on `observed_sessions` distinct days (default 2)
confirmed it, for `fixed` on `fixed_sessions` days (default 4) by at least `fixed_users`
people (default 2), in both cases only while the Laplace estimate (s + 1) / (s + f + 2) stays
at `min_laplace` or more: an atom that sessions keep contradicting is not promoted however
often it is used. Applying edits `confidence:` in the working tree,
keeping comments, key order and quoting; a person reviews and commits it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memkit.atom.write import update_frontmatter
from memkit.lifecycle.catalog import Entry
from memkit.lifecycle.score import day_of, laplace
from memkit.lifecycle.settings import PromoteSettings
from memkit.lifecycle.team import TeamUsage

TIERS = ("tentative", "observed", "fixed")
# Written the way the atom wrote its tier: 臨 becomes 觀, not `observed`.
CJK_TIER = {"observed": "觀", "fixed": "固"}


@dataclass(frozen=True)
class Promotion:
    entry: Entry
    target: str
    confirmed: int
    contradicted: int
    users: int
    laplace: float
    last_used: str  # YYYY-MM-DD, "" when never
    days: int = 0  # distinct days of the confirming sessions
    people: tuple[str, ...] = ()
    answered: int = 0  # sessions whose answer referred to it
    read: int = 0  # sessions whose agent read it whole
    cited: int = 0  # sessions that wrote an atom citing it

    @property
    def evidence(self) -> str:
        names = f" ({', '.join(self.people)})" if self.people else ""
        how = [
            f"{what} in {n}"
            for what, n in (
                ("referred to in the answer", self.answered),
                ("read whole", self.read),
                ("cited", self.cited),
            )
            if n
        ]
        return (
            f"confirmed in {self.confirmed} sessions on {self.days} days by {self.users} "
            f"{'person' if self.users == 1 else 'people'}{names}"
            + (f": {', '.join(how)}" if how else "")
            + f"; contradicted in {self.contradicted}; Laplace {self.laplace:.2f}"
            + (f"; last used {self.last_used}" if self.last_used else "")
        )

    def as_json(self) -> dict[str, Any]:
        shown_id, shown_path = self.entry.shown
        return {
            "id": shown_id,
            "path": shown_path,
            "from": self.entry.confidence,
            "to": self.target,
            "confirmed": self.confirmed,
            "days": self.days,
            "contradicted": self.contradicted,
            "users": self.users,
            "people": list(self.people),
            "answered": self.answered,
            "read": self.read,
            "cited": self.cited,
            "laplace": round(self.laplace, 4),
            "last_used": self.last_used,
        }


def target_tier(
    confirmed: int, contradicted: int, users: int, settings: PromoteSettings, days: int = -1
) -> str | None:
    """The highest tier the evidence supports, or None. `days`: the distinct days of the
    confirming sessions (-1: count sessions, as if each fell on a day of its own)."""
    days = confirmed if days < 0 else min(days, confirmed)
    if laplace(confirmed, contradicted) < settings.min_laplace:
        return None
    if days >= settings.fixed_sessions and users >= settings.fixed_users:
        return "fixed"
    if days >= settings.observed_sessions:
        return "observed"
    return None


def promotions(
    entries: Iterable[Entry], team: TeamUsage, settings: PromoteSettings
) -> list[Promotion]:
    out = []
    for entry in entries:
        # Episodic summaries expire; they are not knowledge to settle.
        if not entry.is_live or entry.scope == "episodic" or entry.confidence not in TIERS[:2]:
            continue
        use = team.of(entry.id)
        tally = use.tally
        days = len(tally.days)
        users = len(use.users)
        target = target_tier(tally.confirmed, tally.contradicted, users, settings, days)
        if target is None or TIERS.index(target) <= TIERS.index(entry.confidence):
            continue
        out.append(
            Promotion(
                entry,
                target,
                tally.confirmed,
                tally.contradicted,
                users,
                laplace(tally.confirmed, tally.contradicted),
                day_of(tally.last).isoformat() if tally.last is not None else "",
                days=min(days, tally.confirmed),
                people=tuple(sorted(use.users)),
                answered=tally.answered,
                read=tally.read,
                cited=tally.cited,
            )
        )
    return sorted(out, key=lambda p: (-TIERS.index(p.target), -p.confirmed, p.entry.id))


def apply_promotion(root: Path, promotion: Promotion) -> None:
    """Edit `confidence:` in place (ruamel round trip: comments, order, quoting kept)."""
    entry = promotion.entry
    value = promotion.target
    if entry.confidence_raw in ("臨", "觀", "观"):
        value = CJK_TIER[value]
    update_frontmatter(root / entry.path, {"confidence": value})
