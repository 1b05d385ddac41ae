"""The local usage log: what was injected when, per session. Never committed.

SQLite in WAL mode under `.memkit/usage.db` (0600), so several Claude Code sessions can write
at once. It feeds ACT-R base-level activation (B = ln sum t_k^-0.5), the no-repeat rule, and
the per-session evidence (`memkit.recall.evidence`) that `memkit promote`, `memkit archive`
and `memkit health` count; `memkit usage export` is the only way any of it leaves the clone.

It only tunes ranking, so it never stands in a hook's way:
- bounded: past KEEP_USES rows, the oldest uses are folded (FOLD_BATCH rows per transaction,
  one batch per write, more while the engine is idle) into one row per atom (count, first
  and last use), whose share of the sum is approximated as if those uses were spread evenly
  between the two (Petrov 2006: sum t^-0.5 ~ 2n / (sqrt(t_first) + sqrt(t_last))); reads take
  only the newest rows, so a log of any size answers in the same time;
- damaged (not a database, or corrupt pages behind a valid header): set aside as
  `usage.db.damaged-*` and started afresh, at open or at the first query that finds it;
- a full disk, a read-only `.memkit/` or a lock held too long are not damage: the file is
  kept, the write skipped, one line logged; reads use what can be read.
"""

from __future__ import annotations

import contextlib
import math
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TypeVar

from memkit.files import memkit_dir
from memkit.recall import evidence
from memkit.recall.evidence import Tally

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.recall.hooklog"}


MAX_PARAMS = 900
NO_HISTORY = -5.0  # the activation of an atom never used: low, but comparable
KEEP_USES = 20_000  # raw uses kept; older ones are folded into `history`
# Rows folded in one transaction: ~0.1 s on a 2,000,000-row log (removing them from the atom
# index is most of it), so a write never holds a prompt; a batch of 200,000 took a cold hook
# past its deadline there: killed, rolled back, repeated on every prompt. Each batch is
# committed on its own: an old, huge log shrinks by one batch per write, and by as many as
# the engine folds while idle (each short, so hooks' writes slip in between).
FOLD_BATCH = 1_000
KEEP_ROWS = 20_000  # `given`, `sessions`, `blind` rows kept (no-repeat lists, notes, topics)
_SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS uses (atom TEXT NOT NULL, ts REAL NOT NULL, kind TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS uses_atom ON uses (atom);
CREATE TABLE IF NOT EXISTS given (session TEXT NOT NULL, atom TEXT NOT NULL,
                                  PRIMARY KEY (session, atom));
CREATE TABLE IF NOT EXISTS sessions (session TEXT NOT NULL, ts REAL NOT NULL,
                                     event TEXT NOT NULL, detail TEXT);
CREATE TABLE IF NOT EXISTS history (atom TEXT PRIMARY KEY, n INTEGER NOT NULL,
                                    first REAL NOT NULL, last REAL NOT NULL);
CREATE TABLE IF NOT EXISTS blind (term TEXT NOT NULL, session TEXT NOT NULL, day TEXT NOT NULL,
                                  PRIMARY KEY (term, session));
"""
    + evidence.SCHEMA
)
T = TypeVar("T")


def damaged(exc: sqlite3.Error) -> bool:
    """Corruption, as opposed to a full disk, a read-only file or a busy lock."""
    name = getattr(exc, "sqlite_errorname", "")
    return name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB"))


def _connect(path: Path) -> sqlite3.Connection:
    if not path.exists():
        # Born 0600 (SQLite gives its -wal and -shm files the same mode).
        os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600))
    db = sqlite3.connect(path, timeout=2.0, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        # No fsync: an fsync per prompt costs milliseconds on a busy disk, and losing the last
        # few uses in a power cut only nudges a ranking.
        db.execute("PRAGMA synchronous=OFF")
        db.executescript(_SCHEMA)
    except BaseException:
        db.close()
        raise
    with contextlib.suppress(OSError):
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)  # made by an older memkit, readable by others
    return db


def _connect_read_only(path: Path) -> sqlite3.Connection:
    # immutable: no -shm or lock files, which a read-only folder cannot hold.
    return sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True, isolation_level=None)


class UsageLog:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / ".memkit" / "usage.db"
        self.db: sqlite3.Connection | None = None
        self.writable = False
        self._noted = False
        try:
            memkit_dir(root)
            self._open()
        except sqlite3.DatabaseError as exc:
            if damaged(exc):
                self._set_aside()
            else:
                self._fallback(exc)
        except OSError as exc:
            self._fallback(exc)

    def _open(self) -> None:
        self.db = _connect(self.path)
        self.writable = True

    def _set_aside(self) -> None:
        """A damaged log is set aside, not repaired: it is local and only tunes ranking."""
        if self.db is not None:
            self.db.close()
            self.db = None
        self.writable = False
        try:
            self.path.replace(self.path.with_name(f"usage.db.damaged-{int(time.time())}"))
            for extra in ("-wal", "-shm"):
                self.path.with_name("usage.db" + extra).unlink(missing_ok=True)
            self._note("the usage log was damaged; set aside and started afresh")
            self._open()
        except (OSError, sqlite3.Error) as exc:
            self._fallback(exc)

    def _fallback(self, exc: BaseException) -> None:
        """Not writable now (a full disk, a read-only folder): read what can be read."""
        self._note(f"the usage log is not written ({exc})")
        self.writable = False
        try:
            self.db = _connect_read_only(self.path) if self.path.is_file() else None
        except (OSError, sqlite3.Error):
            self.db = None

    def _note(self, message: str) -> None:
        if self._noted:
            return
        self._noted = True
        from memkit.recall.hooklog import log_line

        log_line(str(self.root), "usage log", message)

    def _guard(self, op: Callable[[sqlite3.Connection], T], default: T, *, write: bool) -> T:
        """Run `op`; on damage, set the log aside and try once more; on anything else
        (full, read-only, busy), skip it."""
        for attempt in (1, 2):
            if self.db is None or (write and not self.writable):
                return default
            try:
                return op(self.db)
            except sqlite3.DatabaseError as exc:
                if damaged(exc) and attempt == 1:
                    self._set_aside()
                    continue
                if write and self.db.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        self.db.execute("ROLLBACK")
                self._note(f"the usage log was not updated ({exc})")
                return default
        return default

    def close(self) -> None:
        if self.db is not None:
            self.db.close()

    def given(self, session: str) -> set[str]:
        def op(db: sqlite3.Connection) -> set[str]:
            rows = db.execute("SELECT atom FROM given WHERE session = ?", (session,))
            return {r[0] for r in rows}

        return self._guard(op, set(), write=False)

    def record(
        self,
        session: str,
        atoms: Iterable[str],
        kind: str = "inject",
        now: float | None = None,
        *,
        given_to: str = "",
    ) -> None:
        """Atoms given to a session (`kind`: inject for a prompt, path, get by the MCP server):
        a use for activation, given for the no-repeat rule, evidence for the lifecycle.
        `given_to`: whose no-repeat record holds them, when not the session's own (a subagent
        of it: `agent_key`); the evidence is the session's either way."""
        now = now or time.time()
        atoms = list(atoms)
        if not atoms:
            return

        def op(db: sqlite3.Connection) -> None:
            # One transaction: in autocommit mode each row would be a commit of its own.
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT INTO uses VALUES (?, ?, ?)", [(a, now, kind) for a in atoms])
            holder = given_to or session
            db.executemany(
                "INSERT OR IGNORE INTO given VALUES (?, ?)", [(holder, a) for a in atoms]
            )
            if session:
                evidence.insert(db, session, atoms, evidence.WHAT_OF_KIND.get(kind, kind), now)
                evidence.fold(db)
            _trim(db, "given")
            db.execute("COMMIT")
            # The uses are written; one bounded batch of folding, in its own transaction.
            db.execute("BEGIN IMMEDIATE")
            _fold(db)
            db.execute("COMMIT")

        self._guard(op, None, write=True)

    def note(self, session: str, atoms: Iterable[str], what: str, now: float | None = None) -> None:
        """Evidence only (`memkit.recall.evidence.WHATS`): listed at session start, read,
        cited, contradicted. Neither a use for activation nor given."""
        if what not in evidence.WHATS:
            raise ValueError(f"unknown evidence {what!r}")
        atoms = list(atoms)
        if not session or not atoms:
            return
        stamp = now or time.time()

        def op(db: sqlite3.Connection) -> None:
            db.execute("BEGIN IMMEDIATE")
            evidence.insert(db, session, atoms, what, stamp)
            evidence.fold(db)
            db.execute("COMMIT")

        self._guard(op, None, write=True)

    def tallies(self) -> dict[str, Tally]:
        """Each atom's sessions: confirmed, contradicted, injected, read, cited, shown."""
        return self._guard(evidence.tallies, {}, write=False)

    def started(self) -> float | None:
        """When this log began counting (its oldest use); None when it holds nothing."""
        return self._guard(evidence.started, None, write=False)

    def session_atoms(self, session: str, limit: int = 20) -> list[str]:
        return self._guard(lambda db: evidence.session_atoms(db, session, limit), [], write=False)

    def contradicted(self, session: str) -> set[str]:
        return self._guard(lambda db: evidence.contradicted(db, session), set(), write=False)

    def clone_id(self) -> str | None:
        """This log's id, made on first use; None when the log cannot be written."""

        def op(db: sqlite3.Connection) -> str:
            db.execute("BEGIN IMMEDIATE")
            found = evidence.clone_id(db, os.urandom(8).hex())
            db.execute("COMMIT")
            return found

        return self._guard(op, None, write=True)

    def forget_session(self, session: str) -> None:
        """After compaction the model no longer has what it was given: allow it again."""
        self._guard(
            lambda db: db.execute("DELETE FROM given WHERE session = ?", (session,)),
            None,
            write=True,
        )

    def session_event(self, session: str, event: str, detail: str = "") -> None:
        def op(db: sqlite3.Connection) -> None:
            db.execute("BEGIN IMMEDIATE")
            db.execute(
                "INSERT INTO sessions VALUES (?, ?, ?, ?)",
                (session, time.time(), event, detail[:500]),
            )
            _trim(db, "sessions")
            db.execute("COMMIT")

        self._guard(op, None, write=True)

    def note_blind(self, session: str, terms: Iterable[str]) -> None:
        """Words of a prompt that got nothing and that no atom holds: one row per word and
        session (never the prompt), for `memkit health`'s blind spots."""
        day = time.strftime("%Y-%m-%d")
        rows = [(term, session, day) for term in terms]
        if not session or not rows:
            return

        def op(db: sqlite3.Connection) -> None:
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT OR IGNORE INTO blind VALUES (?, ?, ?)", rows)
            _trim(db, "blind")
            db.execute("COMMIT")

        self._guard(op, None, write=True)

    def blind_spots(self, since: str, sessions: int) -> list[tuple[str, int]]:
        """The words asked about in `sessions` or more sessions since day `since` with no
        atom to serve, most asked first."""

        def op(db: sqlite3.Connection) -> list[tuple[str, int]]:
            rows = db.execute(
                "SELECT term, count(*) FROM blind WHERE day >= ? GROUP BY term "
                "HAVING count(*) >= ? ORDER BY 2 DESC, 1",
                (since, sessions),
            )
            return [(str(term), int(n)) for term, n in rows]

        return self._guard(op, [], write=False)

    def maintain(self, budget: float | None = None) -> bool:
        """Fold and trim now (the engine does it while idle), one short transaction per batch,
        until bounded or `budget` seconds have passed; True when more is left to fold."""
        stop = None if budget is None else time.monotonic() + budget

        def op(db: sqlite3.Connection) -> bool:
            db.execute("BEGIN IMMEDIATE")
            evidence.fold(db)  # all foldable sessions at once
            _trim(db, "given")
            _trim(db, "sessions")
            _trim(db, "blind")
            db.execute("COMMIT")
            while True:
                db.execute("BEGIN IMMEDIATE")
                more = _fold(db)
                db.execute("COMMIT")
                if not more or (stop is not None and time.monotonic() > stop):
                    return more

        return self._guard(op, False, write=True)

    def activation(self, atoms: Iterable[str], now: float | None = None) -> dict[str, float]:
        """ACT-R base-level activation per atom, t in hours since each use (min 1 minute)."""
        now = now or time.time()
        atoms = list(atoms)
        out = dict.fromkeys(atoms, NO_HISTORY)
        if not atoms:
            return out
        empty: dict[str, float] = {}
        sums = self._guard(lambda db: _sums(db, atoms, now), empty, write=False)
        for atom, total in sums.items():
            if atom in out and total > 0:
                out[atom] = math.log(total)
        return out


def agent_key(session: str, agent: str) -> str:
    """The no-repeat record of one subagent of `session` (Claude Code's `agent_id`): it reads
    files on its own, and is given their atoms whatever the main agent was given."""
    return f"{session}/agent/{agent}" if agent else session


def _age(now: float, ts: float) -> float:
    return max((now - ts) / 3600.0, 1 / 60)


def _sums(db: sqlite3.Connection, atoms: list[str], now: float) -> dict[str, float]:
    wanted = set(atoms)
    sums: dict[str, float] = {}
    # The newest KEEP_USES rows only: a log not yet folded (an old one, just upgraded) still
    # reads in bounded time; what lies beyond is folded into `history` by the next writes.
    (top,) = db.execute("SELECT coalesce(max(rowid), 0) FROM uses").fetchone()
    if len(atoms) <= MAX_PARAMS:
        marks = ",".join("?" * len(atoms))
        rows = db.execute(
            f"SELECT atom, ts FROM uses WHERE rowid > ? AND atom IN ({marks})",  # noqa: S608
            [top - KEEP_USES, *atoms],
        )
        old = db.execute(
            f"SELECT atom, n, first, last FROM history WHERE atom IN ({marks})",  # noqa: S608
            atoms,
        )
    else:
        # The whole repository (a session's index): older SQLite allows 999 parameters.
        rows = db.execute("SELECT atom, ts FROM uses WHERE rowid > ?", (top - KEEP_USES,))
        old = db.execute("SELECT atom, n, first, last FROM history")
    for atom, ts in rows:
        if atom in wanted:
            sums[atom] = sums.get(atom, 0.0) + _age(now, ts) ** -0.5
    for atom, n, first, last in old:
        if atom in wanted:
            t_first, t_last = _age(now, first), _age(now, last)
            share = 2 * n / (math.sqrt(t_first) + math.sqrt(t_last))
            sums[atom] = sums.get(atom, 0.0) + share
    return sums


def _fold(db: sqlite3.Connection) -> bool:
    """Fold the oldest uses beyond KEEP_USES into `history`, FOLD_BATCH at most; True when
    more remain. Rowids grow with time, so the oldest rows are the lowest rowids."""
    low, top = _bounds(db, "uses")
    if low is None or top is None or top - low < KEEP_USES + KEEP_USES // 10:
        return False  # folded in steps of a tenth, not on every write
    cut = min(top - KEEP_USES, low + FOLD_BATCH)
    db.execute(
        "INSERT INTO history (atom, n, first, last) "
        # NOT INDEXED: grouping by the atom index scans all of it (0.9 s at 2,000,000 rows);
        # the rowid range and a small temporary b-tree take 10 ms.
        "SELECT atom, count(*), min(ts), max(ts) FROM uses NOT INDEXED WHERE rowid <= ? "
        "GROUP BY atom "
        "ON CONFLICT (atom) DO UPDATE SET n = n + excluded.n, "
        "first = min(first, excluded.first), last = max(last, excluded.last)",
        (cut,),
    )
    db.execute("DELETE FROM uses WHERE rowid <= ?", (cut,))
    return bool(cut < top - KEEP_USES)


def _bounds(db: sqlite3.Connection, table: str) -> tuple[int | None, int | None]:
    """The lowest and highest rowid: two look-ups in the b-tree. Asked together in one
    SELECT, SQLite scans the whole table for them (1.3 s at 2,000,000 rows)."""
    (low,) = db.execute(f"SELECT min(rowid) FROM {table}").fetchone()  # noqa: S608
    (top,) = db.execute(f"SELECT max(rowid) FROM {table}").fetchone()  # noqa: S608
    return low, top


def _trim(db: sqlite3.Connection, table: str) -> None:
    """Keep the newest KEEP_ROWS rows of `given`, `sessions` or `blind`, trimmed in steps."""
    low, top = _bounds(db, table)
    if low is not None and top is not None and top - low >= KEEP_ROWS + KEEP_ROWS // 10:
        db.execute(f"DELETE FROM {table} WHERE rowid <= ?", (top - KEEP_ROWS,))  # noqa: S608


@contextlib.contextmanager
def usage_log(root: Path) -> Iterator[UsageLog]:
    """The usage log of `root`, closed afterwards (a warm process keeps one open per
    repository: `memkit.recall.readers.Readers.usage_log`)."""
    log = UsageLog(root)
    try:
        yield log
    finally:
        log.close()
