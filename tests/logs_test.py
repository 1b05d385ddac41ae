"""Logs are this user's alone and never hold secret or private text (issue 21)."""

from __future__ import annotations

import argparse
import os
import stat
from pathlib import Path

import pytest

from memkit import main as main_module

TOKEN = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"  # noqa: S105  (fake)


def crash(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> str:
    def boom(args: argparse.Namespace) -> int:
        raise RuntimeError(f"bug while handling {vars(args)}")

    monkeypatch.setattr("memkit.commands.validate.run", boom)
    assert main_module.main(argv) == 3
    return ""


def test_a_crash_log_is_private_and_masked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.delenv("MEMKIT_LOG_DIR")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    crash(monkeypatch, ["validate", f"shared/{TOKEN}.md", "<private>hunter2</private>"])
    err = capsys.readouterr().err
    folder = tmp_path / "state" / "memkit" / "logs"
    (log,) = folder.iterdir()
    assert str(log) in err
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    text = log.read_text(encoding="utf-8")
    assert "RuntimeError: bug while handling" in text
    assert TOKEN not in text and "xoxb…(56 chars)" in text
    assert "hunter2" not in text


@pytest.mark.skipif(os.geteuid() != 0, reason="making a folder another user owns needs root")
def test_a_log_folder_of_another_user_is_not_used(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    shared = tmp_path / "memkit-logs"
    shared.mkdir(mode=0o777)
    os.chown(shared, 65534, 65534)
    monkeypatch.setenv("MEMKIT_LOG_DIR", str(shared))
    crash(monkeypatch, ["validate", "x.md"])
    assert "internal error" in capsys.readouterr().err
    assert list(shared.iterdir()) == []


def test_the_same_crash_leaves_one_log_an_hour(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "logs"
    monkeypatch.setenv("MEMKIT_LOG_DIR", str(folder))
    for _ in range(3):  # a hook failing the same way on every prompt
        crash(monkeypatch, ["validate", "x.md"])
    (log,) = folder.iterdir()
    assert log.read_text(encoding="utf-8").count("- again at ") == 2
    assert capsys.readouterr().err.count(str(log)) == 3  # each run still says where it is

    def other(args: argparse.Namespace) -> int:
        raise KeyError("another bug")

    monkeypatch.setattr("memkit.commands.validate.run", other)
    assert main_module.main(["validate"]) == 3
    assert len(list(folder.iterdir())) == 2  # another cause: a log of its own
    # An hour on, the first cause gets a fresh log.
    log.rename(log.with_name("crash-20000101-000000" + log.name[21:]))
    crash(monkeypatch, ["validate", "x.md"])
    assert len(list(folder.iterdir())) == 3
