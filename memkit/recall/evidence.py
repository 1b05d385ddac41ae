"""What each session did with each atom, in the usage log: the evidence `memkit promote` and
`memkit archive` count (docs/lifecycle.md). Standard library only: hooks write it.

One row per (session, atom, what), `what` being how the session met the atom:
- `prompt`, `path`: injected for a prompt, or before a matching file was read or edited;
- `start`: listed in the SessionStart index (seen, not used: it confirms nothing);
- `answered`: the turn's answer referred to it (`memkit.lifecycle.evidence.refers`);
- `read`: read whole (`memkit show` run by the agent, the MCP server's `get`);
- `cited`: referenced by what the session wrote (an atom's `related:`, a capture candidate);
- `contradicted`: the session said otherwise (the turn's answer, an atom superseding it).

A session confirms an atom when it used it (referred to it in an answer, read it whole or
cited it) and did not contradict it. Being injected is not use: an atom a scripted prompt
brings into every session, and that no answer ever draws on, earns nothing. Counts are of
sessions, not of hooks, and the days they fell on are kept (`days`): promotion counts distinct
days, so one afternoon of sessions is one day of evidence. Past KEEP_EVIDENCE rows, whole
sessions (oldest first) are folded into `tally` and `tally_days`, one row per atom, so the
log stays bounded and the counts stay exact.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any, NamedTuple

KEEP_EVIDENCE = 50_000
USED = ("answered", "read", "cited")  # what confirms an atom (not being injected)
WHATS = ("prompt", "path", *USED, "start", "contradicted")
# record(kind=...) of the usage log -> the evidence it is
WHAT_OF_KIND = {"inject": "prompt", "prompt": "prompt", "path": "path", "get": "read"}

SCHEMA = """
CREATE TABLE IF NOT EXISTS evidence (session TEXT NOT NULL, atom TEXT NOT NULL,
                                     what TEXT NOT NULL, ts REAL NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS evidence_key ON evidence (session, atom, what);
CREATE TABLE IF NOT EXISTS tally (atom TEXT PRIMARY KEY, confirmed INTEGER NOT NULL,
    contradicted INTEGER NOT NULL, injected INTEGER NOT NULL, read INTEGER NOT NULL,
    cited INTEGER NOT NULL, shown INTEGER NOT NULL, first REAL, last REAL);
CREATE TABLE IF NOT EXISTS tally_days (atom TEXT PRIMARY KEY, answered INTEGER NOT NULL,
    days TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

# Per atom, over sessions: each session's verdict first, then the sums. `first`/`last` are
# the first and last use (a listing at session start is not a use); `days`, the days (UTC,
# as exports name days) of the sessions that confirmed it.
_PER_ATOM = """
SELECT atom, sum(used AND NOT contra), sum(contra), sum(inj), sum(rd), sum(ct), sum(shown),
       min(first), max(last), sum(ans), group_concat(CASE WHEN used AND NOT contra THEN day END)
FROM (SELECT atom, session,
             max(what IN ('answered', 'read', 'cited')) AS used,
             max(what = 'contradicted') AS contra,
             max(what IN ('prompt', 'path')) AS inj,
             max(what = 'read') AS rd,
             max(what = 'cited') AS ct,
             max(what = 'start') AS shown,
             max(what = 'answered') AS ans,
             min(CASE WHEN what != 'start' THEN ts END) AS first,
             max(CASE WHEN what != 'start' THEN ts END) AS last,
             date(min(CASE WHEN what IN ('answered', 'read', 'cited') THEN ts END),
                  'unixepoch') AS day
      FROM evidence {where} GROUP BY atom, session)
GROUP BY atom
"""


class Tally(NamedTuple):
    """One atom's use over sessions: counts of sessions, first and last use (epoch seconds),
    the days of the sessions that confirmed it (YYYY-MM-DD). A NamedTuple, not a dataclass:
    importing dataclasses costs a cold hook ~20 ms."""

    confirmed: int = 0
    contradicted: int = 0
    injected: int = 0
    read: int = 0
    cited: int = 0
    shown: int = 0
    first: float | None = None
    last: float | None = None
    answered: int = 0
    days: frozenset[str] = frozenset()

    def plus(self, other: Tally) -> Tally:
        firsts = [t for t in (self.first, other.first) if t is not None]
        lasts = [t for t in (self.last, other.last) if t is not None]
        return Tally(
            self.confirmed + other.confirmed,
            self.contradicted + other.contradicted,
            self.injected + other.injected,
            self.read + other.read,
            self.cited + other.cited,
            self.shown + other.shown,
            min(firsts) if firsts else None,
            max(lasts) if lasts else None,
            self.answered + other.answered,
            self.days | other.days,
        )

    @classmethod
    def of(
        cls,
        counts: list[int],
        first: float | None,
        last: float | None,
        days: frozenset[str] = frozenset(),
    ) -> Tally:
        """From the counts in field order (confirmed ... shown, then answered if given)."""
        c = [*counts, 0][:7]
        return cls(c[0], c[1], c[2], c[3], c[4], c[5], first, last, c[6], days)


def _days(joined: Any) -> frozenset[str]:
    return frozenset(d for d in str(joined or "").split(",") if d)


def _row_tally(row: tuple[Any, ...]) -> Tally:
    """From a `_PER_ATOM` row without its atom."""
    first, last = row[6], row[7]
    return Tally.of(
        [*(int(v or 0) for v in row[:6]), int(row[8] or 0)],
        float(first) if first is not None else None,
        float(last) if last is not None else None,
        _days(row[9]),
    )


def insert(
    db: sqlite3.Connection, session: str, atoms: Iterable[str], what: str, ts: float
) -> None:
    """Inside the caller's transaction. The first time of each (session, atom, what) is kept."""
    db.executemany(
        "INSERT OR IGNORE INTO evidence VALUES (?, ?, ?, ?)",
        [(session, atom, what, ts) for atom in atoms],
    )


def _folded(db: sqlite3.Connection) -> dict[str, Tally]:
    out: dict[str, Tally] = {}
    for atom, *rest, answered, days in db.execute(
        "SELECT t.atom, confirmed, contradicted, injected, read, cited, shown, first, last, "
        "coalesce(d.answered, 0), coalesce(d.days, '') FROM tally t "
        "LEFT JOIN tally_days d ON d.atom = t.atom"
    ):
        out[atom] = _row_tally((*rest, answered, days))
    return out


def tallies(db: sqlite3.Connection) -> dict[str, Tally]:
    """Every atom's tally: the folded sessions plus the live ones."""
    out = _folded(db)
    for atom, *rest in db.execute(_PER_ATOM.format(where="")):
        live = _row_tally(tuple(rest))
        out[atom] = out[atom].plus(live) if atom in out else live
    return out


def started(db: sqlite3.Connection) -> float | None:
    """When this log began counting: its oldest use of any kind (uses older than that were
    never seen, so "unused since" can reach back no further)."""
    (found,) = db.execute(
        "SELECT min(t) FROM (SELECT min(ts) AS t FROM uses UNION ALL "
        "SELECT min(first) FROM history UNION ALL SELECT min(ts) FROM evidence UNION ALL "
        "SELECT min(first) FROM tally)"
    ).fetchone()
    return float(found) if found is not None else None


def session_atoms(db: sqlite3.Connection, session: str, limit: int) -> list[str]:
    """The atoms a session was given or read, the most recent first."""
    rows = db.execute(
        "SELECT atom FROM evidence WHERE session = ? AND what IN ('prompt', 'path', 'read') "
        "GROUP BY atom ORDER BY max(ts) DESC LIMIT ?",
        (session, limit),
    )
    return [r[0] for r in rows]


def contradicted(db: sqlite3.Connection, session: str) -> set[str]:
    rows = db.execute(
        "SELECT atom FROM evidence WHERE session = ? AND what = 'contradicted'", (session,)
    )
    return {r[0] for r in rows}


def fold(db: sqlite3.Connection) -> bool:
    """Inside the caller's transaction: fold whole sessions whose rows all lie beyond the
    newest KEEP_EVIDENCE into `tally`. True when the table was over its bound."""
    low, top = db.execute("SELECT min(rowid), max(rowid) FROM evidence").fetchone()
    if low is None or top - low < KEEP_EVIDENCE + KEEP_EVIDENCE // 10:
        return False  # folded in steps of a tenth, not on every write
    cut = top - KEEP_EVIDENCE
    db.execute("DROP TABLE IF EXISTS temp.folding")
    db.execute(
        "CREATE TEMP TABLE folding AS SELECT session FROM evidence "
        "GROUP BY session HAVING max(rowid) <= ?",
        (cut,),
    )
    where = "WHERE session IN (SELECT session FROM temp.folding)"
    rows = db.execute(_PER_ATOM.format(where=where)).fetchall()
    old = _folded(db)
    merged = []
    for atom, *rest in rows:
        live = _row_tally(tuple(rest))
        tally = old[atom].plus(live) if atom in old else live
        merged.append((atom, tally))
    db.executemany(
        "INSERT OR REPLACE INTO tally VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(atom, *t[:8]) for atom, t in merged],
    )
    db.executemany(
        "INSERT OR REPLACE INTO tally_days VALUES (?, ?, ?)",
        [(atom, t.answered, ",".join(sorted(t.days))) for atom, t in merged],
    )
    db.execute("DELETE FROM evidence " + where)  # noqa: S608  (no user input)
    db.execute("DROP TABLE temp.folding")
    return True


def clone_id(db: sqlite3.Connection, make: str) -> str:
    """This log's id (made once, inside the caller's transaction): a clone's exported usage
    replaces its own earlier export, never another clone's."""
    row = db.execute("SELECT value FROM meta WHERE key = 'clone'").fetchone()
    if row is not None:
        return str(row[0])
    db.execute("INSERT INTO meta VALUES ('clone', ?)", (make,))
    return make
