"""The team's picture of usage: this clone's local log plus every member's opt-in export.

Usage never leaves a clone by itself. `memkit usage export` writes `usage/<user>.json`: per
atom, counts of sessions (confirmed, contradicted, injected, read, cited, shown) and the first
and last day of use; no prompt, no session id, no time of day. One file per person holds one
entry per clone (a laptop and a desktop), so an export replaces its own clone's entry and
keeps the others. The commands merge every file with the live local log (which replaces its
own clone's exported entry: it is the same data, newer).
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memkit.errors import MemkitError
from memkit.files import write_atomic
from memkit.lifecycle.score import day_of, parse_day
from memkit.recall.evidence import Tally
from memkit.recall.usage import usage_log
from memkit.roles import identify

EXPORT_DIR = "usage"
FORMAT = 1
COUNTS = ("confirmed", "contradicted", "injected", "read", "cited", "shown", "answered")
MAX_DAYS = 400  # confirming days exported per atom: the newest
_USER = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


@dataclass(frozen=True)
class Use:
    tally: Tally
    users: frozenset[str]  # people whose sessions confirmed it


@dataclass
class TeamUsage:
    atoms: dict[str, Use] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # unreadable exports, by path
    # When the earliest source began counting: an atom never used is "unused" only since then.
    since: float | None = None

    def counted_from(self, when: float | None) -> None:
        if when is not None and (self.since is None or when < self.since):
            self.since = when

    def add(self, user: str, tallies: dict[str, Tally]) -> None:
        for atom, tally in tallies.items():
            old = self.atoms.get(atom)
            users = frozenset([user]) if tally.confirmed else frozenset()
            if old is None:
                self.atoms[atom] = Use(tally, users)
            else:
                self.atoms[atom] = Use(old.tally.plus(tally), old.users | users)

    def of(self, atom: str) -> Use:
        return self.atoms.get(atom) or Use(Tally(), frozenset())


def export_atoms(tallies: dict[str, Tally]) -> dict[str, dict[str, Any]]:
    """The JSON form of tallies: zero counts left out, times cut to the day."""
    out: dict[str, dict[str, Any]] = {}
    for atom in sorted(tallies):
        tally = tallies[atom]
        item: dict[str, Any] = {k: getattr(tally, k) for k in COUNTS if getattr(tally, k)}
        if tally.first is not None:
            item["first"] = day_of(tally.first).isoformat()
        if tally.last is not None:
            item["last"] = day_of(tally.last).isoformat()
        if tally.days:
            # Days, not times: promotion counts distinct days across the team's clones.
            item["days"] = sorted(tally.days)[-MAX_DAYS:]
        out[atom] = item
    return out


@functools.lru_cache(maxsize=4096)
def _day_stamp(value: Any) -> float | None:
    day = parse_day(value) if isinstance(value, str) else None
    if day is None:
        return None
    return dt.datetime(day.year, day.month, day.day, 12, tzinfo=dt.UTC).timestamp()


_DAYS_SEEN: set[str] = set()  # days already checked: a team's exports name few, many times


def _days(value: Any) -> frozenset[str] | None:
    """An export's `days` (YYYY-MM-DD each), or None when it is not a list of them."""
    if not isinstance(value, list):
        return None
    try:
        days = frozenset(value)  # in C: 10 exports x 5,000 atoms x 100 days stay fast
    except TypeError:
        return None
    for day in days - _DAYS_SEEN:
        if not isinstance(day, str) or len(day) != 10 or parse_day(day) is None:
            return None
        _DAYS_SEEN.add(day)
    return days


def _tallies(atoms: Any, where: str) -> dict[str, Tally]:
    if not isinstance(atoms, dict):
        raise ValueError(f"{where}: `atoms` must be a mapping of atom ids")
    out: dict[str, Tally] = {}
    for atom, item in atoms.items():
        if not isinstance(item, dict):
            raise ValueError(f"{where}: `{atom}` must be a mapping of counts")
        counts = [item.get(k, 0) for k in COUNTS]
        if any(isinstance(c, bool) or not isinstance(c, int) or c < 0 for c in counts):
            raise ValueError(f"{where}: `{atom}` has a count that is not a whole number >= 0")
        days = _days(item.get("days", []))
        if days is None:
            raise ValueError(f"{where}: `{atom}`: `days` must be a list of dates (YYYY-MM-DD)")
        out[str(atom)] = Tally.of(
            counts, _day_stamp(item.get("first")), _day_stamp(item.get("last")), days
        )
    return out


def read_export(path: Path) -> dict[str, tuple[dict[str, Tally], float | None]]:
    """clone id -> (tallies, since when it counted) of one `usage/<user>.json`; ValueError
    says what is wrong."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read it ({exc})") from exc
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON (line {exc.lineno}: {exc.msg})") from exc
    if not isinstance(data, dict) or data.get("memkit_usage") != FORMAT:
        raise ValueError(f'not a memkit usage export (expected "memkit_usage": {FORMAT})')
    clones = data.get("clones")
    if not isinstance(clones, dict):
        raise ValueError("`clones` must be a mapping")
    out: dict[str, tuple[dict[str, Tally], float | None]] = {}
    for clone, part in clones.items():
        if not isinstance(part, dict):
            raise ValueError(f"clone `{clone}` must be a mapping")
        tallies = _tallies(part.get("atoms"), f"clone `{clone}`")
        firsts = [t.first for t in tallies.values() if t.first is not None]
        since = _day_stamp(part.get("since")) or (min(firsts) if firsts else None)
        out[str(clone)] = (tallies, since)
    return out


def _local(root: Path) -> tuple[str, str, dict[str, Tally], float | None] | None:
    """(user, clone id, tallies, since when it counted) of this clone's log; None without
    one."""
    if not (root / ".memkit" / "usage.db").is_file():
        return None

    with usage_log(root) as log:
        clone = log.clone_id() or "local"
        tallies = log.tallies()
        since = log.started()
    return identify(root).user, clone, tallies, since


def read_team_usage(root: Path, *, local: bool = True) -> TeamUsage:
    team = TeamUsage()
    mine = _local(root) if local else None
    if mine is not None:
        user, clone, tallies, since = mine
        team.add(user, tallies)
        team.counted_from(since)
        team.sources.append(f"this clone's usage log ({user}, {len(tallies)} atoms)")
    folder = root / EXPORT_DIR
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        user = path.stem
        rel = f"{EXPORT_DIR}/{path.name}"
        try:
            clones = read_export(path)
        except ValueError as exc:
            team.problems.append(f"{rel}: {exc}")
            continue
        used = 0
        for clone, (tallies, since) in clones.items():
            if mine is not None and (user, clone) == (mine[0], mine[1]):
                continue  # the live log is this clone's, newer
            team.add(user, tallies)
            team.counted_from(since)
            used += 1
        if used:
            team.sources.append(f"{rel} ({used} clone(s))")
    return team


def export(root: Path, *, today: dt.date | None = None) -> tuple[str, dict[str, Any]]:
    """(`usage/<user>.json`, its new content): this clone's entry replaced, others kept."""
    mine = _local(root)
    if mine is None:
        raise MemkitError(
            "no usage log in this clone yet (.memkit/usage.db): it is written by the Claude "
            "Code hooks (`memkit install claude`)"
        )
    user, clone, tallies, since = mine
    if not _USER.match(user):
        raise MemkitError(f"cannot name an export after `{user}`; set your git user.email")
    rel = f"{EXPORT_DIR}/{user}.json"
    doc: dict[str, Any] = {"memkit_usage": FORMAT, "user": user, "clones": {}}
    path = root / rel
    if path.is_file():
        try:
            read_export(path)
            old = json.loads(path.read_text(encoding="utf-8"))
            doc["clones"] = {k: v for k, v in old["clones"].items() if k != clone}
        except (ValueError, OSError, KeyError) as exc:
            raise MemkitError(f"{rel} exists but is not a usage export ({exc}); move it") from exc
    doc["clones"][clone] = {
        "exported": (today or dt.date.today()).isoformat(),
        "since": day_of(since).isoformat() if since is not None else None,
        "atoms": export_atoms(tallies),
    }
    doc["clones"] = dict(sorted(doc["clones"].items()))
    return rel, doc


def write_export(root: Path, rel: str, doc: dict[str, Any]) -> None:
    write_atomic(root / rel, json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
