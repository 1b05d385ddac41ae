"""The usage log stays bounded and ranks the same once old uses are folded (issue 21)."""

from __future__ import annotations

import random
import sqlite3
import time
from pathlib import Path

import pytest

from memkit.recall import usage
from memkit.recall.usage import UsageLog


def count(path: Path, table: str) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])  # noqa: S608


def test_folding_old_uses_keeps_the_ranking(tmp_path: Path) -> None:
    rng = random.Random(7)  # noqa: S311  (test data)
    now = time.time()
    log = UsageLog(tmp_path)
    try:
        assert log.db is not None
        rows = []
        # Five atoms, used at different rates over the last 90 days, some recently.
        for atom, uses, days in (("a", 400, 90), ("b", 150, 30), ("c", 60, 90), ("d", 20, 5)):
            rows += [(atom, now - rng.uniform(0, days) * 86400) for _ in range(uses)]
        rows += [("e", now - 600)] * 3
        rows.sort(key=lambda r: r[1])  # inserted in time order, as hooks do
        log.db.executemany("INSERT INTO uses VALUES (?, ?, 'inject')", rows)
        atoms = ["a", "b", "c", "d", "e", "never"]
        exact = log.activation(atoms, now=now)
        usage.KEEP_USES, saved = 50, usage.KEEP_USES
        try:
            log.maintain()
            folded = log.activation(atoms, now=now)
        finally:
            usage.KEEP_USES = saved
    finally:
        log.close()
    db = tmp_path / ".memkit/usage.db"
    assert count(db, "uses") <= 55 and count(db, "history") == 4
    assert sorted(atoms, key=exact.__getitem__) == sorted(atoms, key=folded.__getitem__)
    for atom in atoms:
        assert folded[atom] == pytest.approx(exact[atom], abs=0.15), atom


def test_every_table_stays_bounded_as_hooks_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(usage, "KEEP_USES", 100)
    monkeypatch.setattr(usage, "KEEP_ROWS", 100)
    log = UsageLog(tmp_path)
    try:
        for n in range(400):
            log.record(f"session-{n}", [f"atom-{n % 7}", f"atom-{n % 11}"])
            log.session_event(f"session-{n}", "session-end", "other")
        act = log.activation(["atom-0", "atom-1"])
    finally:
        log.close()
    db = tmp_path / ".memkit/usage.db"
    assert count(db, "uses") <= 110 and count(db, "given") <= 110
    assert count(db, "sessions") <= 110
    assert act["atom-0"] > usage.NO_HISTORY  # folded uses still count


def test_a_huge_old_log_is_read_in_bounded_rows_and_folded_in_batches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(usage, "FOLD_BATCH", 30_000)
    log = UsageLog(tmp_path)
    assert log.db is not None
    now = time.time()
    total = 100_000
    # A log written before folding existed: "old" used only in its oldest rows.
    log.db.executemany(
        "INSERT INTO uses VALUES (?, ?, 'inject')",
        ((f"atom-{i % 500}" if i > 1_000 else "old", now - (total - i)) for i in range(total)),
    )
    atoms = ["old", "atom-1", "atom-600"]
    before = log.activation(atoms, now=now)
    # Only the newest KEEP_USES rows are read: "old" is beyond them until folded.
    assert before["old"] == usage.NO_HISTORY and before["atom-1"] > usage.NO_HISTORY
    log.record("s", ["atom-1"])  # one write folds one batch, not all of it
    assert usage.KEEP_USES < count(tmp_path / ".memkit/usage.db", "uses") < total - 20_000
    log.maintain()
    after = log.activation(atoms, now=now)
    log.close()
    db = tmp_path / ".memkit/usage.db"
    assert count(db, "uses") <= usage.KEEP_USES + 1 and count(db, "history") == 501
    assert after["old"] > usage.NO_HISTORY and after["atom-600"] == usage.NO_HISTORY


def test_evidence_counts_sessions_and_stays_exact_when_folded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memkit.recall import evidence

    monkeypatch.setattr(evidence, "KEEP_EVIDENCE", 200)
    rng = random.Random(16)  # noqa: S311  (test data)
    start = time.time() - 90 * 86400
    expected: dict[str, list[int]] = {}  # atom -> [confirmed, contradicted, injected, shown]
    days: dict[str, set[str]] = {}  # atom -> the days of the sessions that confirmed it
    log = UsageLog(tmp_path)
    try:
        for n in range(600):
            sid, ts = f"s{n}", start + n * 3600
            given = rng.sample([f"a{i}" for i in range(12)], 3)
            log.record(sid, given, now=ts)
            log.record(sid, given[:1], now=ts + 60)  # the same atom twice: one session
            log.note(sid, ["a0", "a1"], "start", now=ts)
            # Only what the answer drew on confirms; being injected does not.
            answered = [a for a in given if rng.random() < 0.5]
            log.note(sid, answered, "answered", now=ts + 30)
            against = [a for a in given if rng.random() < 0.2]
            log.note(sid, against, "contradicted", now=ts + 120)
            for atom in set(given) | {"a0", "a1"}:
                row = expected.setdefault(atom, [0, 0, 0, 0])
                ok = atom in answered and atom not in against
                row[0] += ok
                row[1] += atom in against
                row[2] += atom in given
                row[3] += atom in ("a0", "a1")
                if ok:
                    day = time.strftime("%Y-%m-%d", time.gmtime(ts + 30))
                    days.setdefault(atom, set()).add(day)
        db = tmp_path / ".memkit/usage.db"
        assert count(db, "evidence") < 300  # folded, whole sessions at a time
        assert count(db, "tally") == 12
        got = log.tallies()
    finally:
        log.close()
    for atom, (confirmed, contradicted, injected, shown) in expected.items():
        tally = got[atom]
        assert (tally.confirmed, tally.contradicted, tally.injected, tally.shown) == (
            confirmed,
            contradicted,
            injected,
            shown,
        ), atom
        assert tally.days == frozenset(days.get(atom, ())), atom  # exact across the fold
    assert got["a5"].first is not None and got["a5"].first >= start
    assert got["a5"].last is not None and got["a5"].last <= start + 600 * 3600
