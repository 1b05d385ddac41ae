"""`memkit promote`: atoms whose confirmations cross the thresholds move up a tier.

臨 tentative -> 觀 observed -> 固 fixed. An atom is proposed for `observed` once it was
confirmed in `observed_sessions` sessions (default 2), for `fixed` in `fixed_sessions`
(default 4) by at least `fixed_users` people, in both cases only while the Laplace estimate
(s + 1) / (s + f + 2) stays at `min_laplace` or more: an atom that sessions keep contradicting
is not promoted however often it is used. Applying edits `confidence:` in the working tree,
keeping comments, key order and quoting; a person reviews and commits it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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

    @property
    def evidence(self) -> str:
        people = f" by {self.users} people" if self.users > 1 else ""
        return (
            f"confirmed in {self.confirmed} sessions{people}, contradicted in "
            f"{self.contradicted}; Laplace {self.laplace:.2f}"
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
            "contradicted": self.contradicted,
            "users": self.users,
            "laplace": round(self.laplace, 4),
            "last_used": self.last_used,
        }


def target_tier(
    confirmed: int, contradicted: int, users: int, settings: PromoteSettings
) -> str | None:
    """The highest tier the evidence supports, or None."""
    if laplace(confirmed, contradicted) < settings.min_laplace:
        return None
    if confirmed >= settings.fixed_sessions and users >= settings.fixed_users:
        return "fixed"
    if confirmed >= settings.observed_sessions:
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
        target = target_tier(tally.confirmed, tally.contradicted, len(use.users), settings)
        if target is None or TIERS.index(target) <= TIERS.index(entry.confidence):
            continue
        out.append(
            Promotion(
                entry,
                target,
                tally.confirmed,
                tally.contradicted,
                len(use.users),
                laplace(tally.confirmed, tally.contradicted),
                day_of(tally.last).isoformat() if tally.last is not None else "",
            )
        )
    return sorted(out, key=lambda p: (-TIERS.index(p.target), -p.confirmed, p.entry.id))


def apply_promotion(root: Path, promotion: Promotion) -> None:
    """Edit `confidence:` in place (ruamel round trip: comments, order, quoting kept)."""
    from memkit.atom.write import update_frontmatter  # noqa: PLC0415

    entry = promotion.entry
    value = promotion.target
    if entry.confidence_raw in ("臨", "觀", "观"):
        value = CJK_TIER[value]
    update_frontmatter(root / entry.path, {"confidence": value})
