"""`memkit health`: one report for a team lead, each line with the command that acts on it.

Read-only: it counts and proposes, the commands it names change things. It reads the
frontmatter catalog, the merged usage, the last audit report, the index's manifest digest
and (for invalid files) what the index left out; nothing is parsed in full.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memkit.audit.classify import RULES
from memkit.audit.status import REPORT, WRITTEN, full_audit_rules, open_conflicts, read_report
from memkit.config import Config
from memkit.index.manifest import is_stale
from memkit.index.store import current_generation
from memkit.lifecycle.archive import DECAYED, EXPIRED, suggestions, unused_days
from memkit.lifecycle.catalog import Entry, read_catalog, refused_by_index
from memkit.lifecycle.promote import promotions
from memkit.lifecycle.score import laplace
from memkit.lifecycle.settings import lifecycle_settings
from memkit.lifecycle.supersede import unmarked
from memkit.lifecycle.team import read_team_usage
from memkit.recall.evidence import Tally
from memkit.safety.secrets import redact_secrets

SHOW = 5  # ids named per line; the count says how many there are


@dataclass(frozen=True)
class Line:
    kind: str
    label: str
    items: tuple[str, ...]
    fix: str
    note: str = ""  # said instead of the items (the index's state, an audit never run)
    ok_text: str = "none"

    def __post_init__(self) -> None:
        # Ids and file names as they may be printed: one named after a token must not print
        # it. Per item, not over the whole report: one pass over 10,000 ids costs ~0.5 s.
        object.__setattr__(self, "items", tuple(redact_secrets(i) for i in self.items))

    @property
    def ok(self) -> bool:
        return not self.items and not self.note

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "label": self.label,
            "count": len(self.items),
            "items": list(self.items),
            "note": self.note,
            "fix": self.fix,
        }


@dataclass
class Health:
    atoms: int
    by_scope: dict[str, int]
    by_type: dict[str, int]
    by_tier: dict[str, int]
    by_status: dict[str, int]
    sources: list[str]
    lines: list[Line] = field(default_factory=list)

    @property
    def problems(self) -> int:
        return sum(not line.ok for line in self.lines)

    def as_json(self) -> dict[str, Any]:
        return {
            "atoms": self.atoms,
            "by_scope": self.by_scope,
            "by_type": self.by_type,
            "by_tier": self.by_tier,
            "by_status": self.by_status,
            "usage_sources": self.sources,
            "problems": self.problems,
            "checks": [line.as_json() for line in self.lines],
        }


def _counts(values: list[str]) -> dict[str, int]:
    return dict(sorted(Counter(values).items(), key=lambda kv: (-kv[1], kv[0])))


def _index_line(root: Path) -> tuple[Line, list[str]]:
    """The index's freshness, and the files it refused (what `memkit validate` fails)."""
    if current_generation(root) is None:
        return Line("index", "search index", (), "memkit index", "none built yet"), []
    skipped = refused_by_index(root)
    if skipped is None:
        return Line("index", "search index", (), "memkit index", "damaged"), []
    note = "behind the working tree" if is_stale(root) else ""
    return Line("index", "search index", (), "memkit index", note, "current"), skipped


def _conflicts(root: Path, live: int) -> Line:
    label = "unresolved conflicts (last audit, and writes since)"
    fix = "add `supersedes: [OLD]` to the atom that holds, then `memkit validate --fix`"
    if not (root / REPORT).is_file() and not (root / WRITTEN).is_file():
        if live < 2:  # a new memory: nothing two atoms could disagree on yet
            return Line("conflicts", label, (), "", ok_text="none (fewer than two atoms)")
        return Line("conflicts", label, (), "memkit audit --all", "no audit report yet")
    pairs = open_conflicts(root, kinds=("contradicts", "duplicate"))
    items = tuple(f"{p['incoming']} vs {p['other']} ({p['kind']})" for p in pairs)
    return Line("conflicts", label, items, fix)


def _rules(root: Path) -> Line:
    """Pulls audit what they bring; after memkit's contradiction rules change, the memory
    already there is seen by the new rules only through one `memkit audit --all`."""
    label = "memory audited in full with today's contradiction rules"
    report = read_report(root)
    if report is None:
        return Line("rules", label, (), "", ok_text="no audit report yet")
    full = full_audit_rules(report)
    if full >= RULES:
        return Line("rules", label, (), "", ok_text="yes")
    said = f"the last full audit ran with rules {full}" if full else "no full audit yet"
    return Line("rules", label, (f"{said}; these are rules {RULES}",), "memkit audit --all")


def _disputed(tally: Tally) -> bool:
    """Contradicted in two sessions or more, and more often than confirmed."""
    return tally.contradicted >= 2 and laplace(tally.confirmed, tally.contradicted) < 0.5


def build_health(root: Path, config: Config, *, today: dt.date | None = None) -> Health:
    today = today or dt.date.today()
    settings = lifecycle_settings(config)
    entries, unreadable = read_catalog(root)
    team = read_team_usage(root)
    index_line, refused = _index_line(root)
    refused_set = set(refused)
    usable = [e for e in entries if e.path not in refused_set]
    live = [e for e in usable if e.is_live]
    health = Health(
        atoms=len(entries),
        by_scope=_counts([e.scope for e in entries]),
        by_type=_counts([e.type for e in entries]),
        by_tier=_counts([e.confidence for e in live]),
        by_status=_counts(
            [
                "pending" if e.pending else "archived" if e.scope == "archive" else e.status
                for e in entries
            ]
        ),
        sources=[redact_secrets(s) for s in team.sources],
    )
    archive = settings.archive
    idle: list[Entry] = []
    for entry in live:
        days = unused_days(entry, team, today)
        if days is not None and days >= archive.unused_days:
            idle.append(entry)
    suggested = suggestions(live, team, archive, today)
    disputed = [e.id for e in live if _disputed(team.of(e.id).tally)]
    lines = health.lines
    lines.append(
        Line(
            "unused",
            f"unused for {archive.unused_days}+ days",
            tuple(e.id for e in idle),
            "memkit archive --suggest",
        )
    )
    lines.append(
        Line(
            "expired",
            "past their `expires` date",
            tuple(s.entry.id for s in suggested if s.kind == EXPIRED),
            "memkit archive --sweep",
        )
    )
    lines.append(
        Line(
            "promote",
            "promotion candidates",
            tuple(
                f"{p.entry.id} ({p.entry.confidence} -> {p.target})"
                for p in promotions(live, team, settings.promote)
            ),
            "memkit promote --apply",
        )
    )
    lines.append(
        Line(
            "archive",
            "archive candidates",
            tuple(s.entry.id for s in suggested if s.kind == DECAYED),
            "memkit archive --suggest, then memkit archive --apply IDS",
        )
    )
    lines.append(
        Line(
            "disputed",
            "contradicted more than confirmed in use",
            tuple(disputed),
            "memkit show ID; correct it or supersede it",
        )
    )
    lines.append(_conflicts(root, len(live)))
    lines.append(_rules(root))
    lines.append(
        Line(
            "superseded",
            "superseded but still active",
            tuple(f"{p.older.id} (by {p.newer.id})" for p in unmarked(usable)),
            "memkit validate --fix",
        )
    )
    lines.append(
        Line(
            "pending",
            "waiting for review",
            tuple(e.id for e in entries if e.pending),
            "memkit review list",
        )
    )
    lines.append(
        Line(
            "invalid",
            "invalid atom files (not served)",
            tuple(sorted({*refused, *unreadable})),
            "memkit validate",
        )
    )
    lines.append(index_line)
    lines.append(
        Line(
            "usage",
            "usage data",
            tuple(team.problems),
            "fix or remove the file, then `memkit usage export --write`"
            if team.problems
            else "each member: `memkit usage export --write`, then commit usage/<you>.json",
            "" if team.sources or team.problems or not live else "none yet: nothing is counted",
            # Said beside "usage from": never "none" while it names what is counted.
            f"counted from {len(team.sources)} source(s), each readable"
            if team.sources
            else "none yet (no atoms to use)"
            if not live
            else "none",
        )
    )
    return health
