"""The CLI's one error boundary: exit 1 for findings and user errors, 2 usage, 3 crash + log."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from memkit import main as main_module
from memkit.errors import MemkitError
from tests.helpers import atom_text, make_memory_repo, memkit, write_atom


def test_version_and_help(tmp_path: Path) -> None:
    assert memkit("--version", cwd=tmp_path).stdout.startswith("memkit ")
    assert "validate" in memkit("--help", cwd=tmp_path).stdout


def test_usage_error_is_exit_2(tmp_path: Path) -> None:
    result = memkit("no-such-command", cwd=tmp_path)
    assert result.returncode == 2
    assert "invalid choice" in result.stderr


def test_user_error_is_one_line_and_exit_1(tmp_path: Path) -> None:
    result = memkit("validate", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith("memkit: error: ")
    assert "memkit init" in result.stderr
    assert "Traceback" not in result.stderr


def test_crash_is_exit_3_with_a_log(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def boom(args: argparse.Namespace) -> int:
        raise ZeroDivisionError("bug")

    monkeypatch.setenv("MEMKIT_LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.setattr("memkit.commands.validate.run", boom)
    assert main_module.main(["validate"]) == 3
    err = capsys.readouterr().err
    assert "internal error" in err
    (log,) = (tmp_path / "logs").iterdir()
    text = log.read_text(encoding="utf-8")
    assert "ZeroDivisionError: bug" in text
    assert "argv: ['validate']" in text


def test_memkit_error_exit_code(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(args: argparse.Namespace) -> int:
        raise MemkitError("nope")

    monkeypatch.setattr("memkit.commands.validate.run", fail)
    assert main_module.main(["validate"]) == 1


def test_index_takes_q_for_quiet(tmp_path: Path) -> None:
    """`-q` as in `memkit import -q`, and as people type it."""
    repo = make_memory_repo(tmp_path / "memory", hooks=False)
    write_atom(repo, "shared/ws-heartbeat.md", atom_text("ws-heartbeat"))
    result = memkit("index", "-q", cwd=repo)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "" and result.stderr == ""
    assert (repo / ".memkit" / "index" / "CURRENT").is_file()
