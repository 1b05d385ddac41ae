"""Whether a reported pair still stands is read from the files as they are at each call: a
serving process (the warm engine, the MCP server) asks many times, and nothing it read before
an atom changed may answer after."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from memkit.audit import status
from tests.helpers import atom_text, write_atom


def _memory(root: Path) -> dict[str, Any]:
    write_atom(root, "shared/ping-30.md", atom_text("ping-30", body="- Ping every 30 s."))
    write_atom(root, "shared/ping-60.md", atom_text("ping-60", body="- Ping every 60 s."))
    pair = {
        "incoming": "ping-60",
        "incoming_path": "shared/ping-60.md",
        "other": "ping-30",
        "other_path": "shared/ping-30.md",
        "kind": "contradicts",
        "reason": "30 s vs 60 s",
    }
    report = root / status.REPORT
    report.parent.mkdir(parents=True)
    report.write_text(json.dumps({"unresolved": [pair]}), encoding="utf-8")
    return pair


def _same_stamp_edit(path: Path, old: str, new: str) -> None:
    """Change a file keeping its size and modification time (as a restore or a fast second
    edit within the clock's tick can)."""
    before = path.stat()
    text = path.read_text(encoding="utf-8")
    assert len(old) == len(new) and old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def test_a_pair_settled_between_two_calls_is_not_reported_by_the_second(tmp_path: Path) -> None:
    pair = _memory(tmp_path)
    assert status.open_conflicts(tmp_path) == [pair]
    assert status.first_conflicts(tmp_path, ("contradicts",), limit=3) == ([pair], False)
    # The older atom stops being active in place: same size, same modification time.
    _same_stamp_edit(tmp_path / "shared/ping-30.md", "type: fact", "status: xx")
    assert status.state(tmp_path, "shared/ping-30.md") is not None
    assert not status.unresolved_now(tmp_path, pair)
    assert status.open_conflicts(tmp_path) == []
    assert status.first_conflicts(tmp_path, ("contradicts",), limit=3) == ([], False)


def test_a_report_rewritten_between_two_calls_is_read_again(tmp_path: Path) -> None:
    pair = _memory(tmp_path)
    report = tmp_path / status.REPORT
    assert status.unresolved_items(report) == [pair]
    settled = json.dumps({"unresolved": []}).ljust(len(report.read_text(encoding="utf-8")))
    stamp = report.stat()
    report.write_text(settled, encoding="utf-8")
    os.utime(report, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert status.unresolved_items(report) == []
    assert status.reported(tmp_path) == []


def test_one_pass_reads_each_atom_once(tmp_path: Path) -> None:
    pair = _memory(tmp_path)
    seen: status.Seen = {}
    assert status.unresolved_now(tmp_path, pair, seen)
    (tmp_path / "shared/ping-30.md").unlink()
    assert status.unresolved_now(tmp_path, pair, seen)  # the pass's own reading
    assert not status.unresolved_now(tmp_path, pair)  # a new call reads the files again


def test_a_pair_reported_both_ways_round_is_one_conflict(tmp_path: Path) -> None:
    """The pull's audit names A against B, a write since (`written.json`) B against A: the
    hooks, health and the site count one conflict (issue 45: the site showed two)."""
    pair = _memory(tmp_path)
    reverse = {
        **pair,
        "incoming": pair["other"],
        "incoming_path": pair["other_path"],
        "other": pair["incoming"],
        "other_path": pair["incoming_path"],
    }
    (tmp_path / status.WRITTEN).write_text(json.dumps({"unresolved": [reverse]}), "utf-8")
    assert status.open_conflicts(tmp_path) == [pair]
    assert status.first_conflicts(tmp_path, ("contradicts",), limit=3) == ([reverse], False)
