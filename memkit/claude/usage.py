"""The local usage log: what was injected when, per session. Never committed.

SQLite in WAL mode under `.memkit/usage.db`, so several Claude Code sessions can write at
once. It feeds ACT-R base-level activation (B = ln sum t_k^-0.5) and the no-repeat rule.
"""

from __future__ import annotations

import contextlib
import math
import sqlite3
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

MAX_PARAMS = 900
NO_HISTORY = -5.0  # the activation of an atom never used: low, but comparable
_SCHEMA = """
CREATE TABLE IF NOT EXISTS uses (atom TEXT NOT NULL, ts REAL NOT NULL, kind TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS uses_atom ON uses (atom);
CREATE TABLE IF NOT EXISTS given (session TEXT NOT NULL, atom TEXT NOT NULL,
                                  PRIMARY KEY (session, atom));
CREATE TABLE IF NOT EXISTS sessions (session TEXT NOT NULL, ts REAL NOT NULL,
                                     event TEXT NOT NULL, detail TEXT);
"""


def _connect(path: Path) -> sqlite3.Connection:
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
    return db


class UsageLog:
    def __init__(self, root: Path) -> None:
        folder = root / ".memkit"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "usage.db"
        try:
            self.db = _connect(path)
        except sqlite3.DatabaseError:
            # A damaged log is set aside, not repaired: it is local and only tunes ranking.
            path.replace(path.with_name(f"usage.db.damaged-{int(time.time())}"))
            for extra in ("-wal", "-shm"):
                path.with_name("usage.db" + extra).unlink(missing_ok=True)
            self.db = _connect(path)

    def close(self) -> None:
        self.db.close()

    def given(self, session: str) -> set[str]:
        rows = self.db.execute("SELECT atom FROM given WHERE session = ?", (session,))
        return {r[0] for r in rows}

    def record(self, session: str, atoms: Iterable[str], kind: str = "inject") -> None:
        now = time.time()
        atoms = list(atoms)
        if not atoms:
            return
        # One transaction: in autocommit mode each row would be a commit of its own.
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.executemany(
                "INSERT INTO uses VALUES (?, ?, ?)", [(a, now, kind) for a in atoms]
            )
            self.db.executemany(
                "INSERT OR IGNORE INTO given VALUES (?, ?)", [(session, a) for a in atoms]
            )
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def forget_session(self, session: str) -> None:
        """After compaction the model no longer has what it was given: allow it again."""
        self.db.execute("DELETE FROM given WHERE session = ?", (session,))

    def session_event(self, session: str, event: str, detail: str = "") -> None:
        self.db.execute(
            "INSERT INTO sessions VALUES (?, ?, ?, ?)", (session, time.time(), event, detail[:500])
        )

    def activation(self, atoms: Iterable[str], now: float | None = None) -> dict[str, float]:
        """ACT-R base-level activation per atom, t in hours since each use (min 1 minute)."""
        now = now or time.time()
        atoms = list(atoms)
        out = dict.fromkeys(atoms, NO_HISTORY)
        if not atoms:
            return out
        sums: dict[str, float] = {}
        if len(atoms) <= MAX_PARAMS:
            marks = ",".join("?" * len(atoms))
            rows = self.db.execute(
                f"SELECT atom, ts FROM uses WHERE atom IN ({marks})",  # noqa: S608
                atoms,
            )
        else:
            # The whole repository (a session's index): older SQLite allows 999 parameters.
            rows = self.db.execute("SELECT atom, ts FROM uses")
        for atom, ts in rows:
            if atom not in out:
                continue
            hours = max((now - ts) / 3600.0, 1 / 60)
            sums[atom] = sums.get(atom, 0.0) + hours**-0.5
        for atom, total in sums.items():
            out[atom] = math.log(total)
        return out


_KEPT: dict[Path, UsageLog] = {}


@contextlib.contextmanager
def usage_log(root: Path, *, keep: bool = False) -> Iterator[UsageLog]:
    """The usage log of `root`. `keep`: the warm engine holds one connection per repository
    for its life instead of opening one per hook."""
    if keep:
        log = _KEPT.get(root)
        if log is None:
            log = _KEPT[root] = UsageLog(root)
        yield log
        return
    log = UsageLog(root)
    try:
        yield log
    finally:
        log.close()
