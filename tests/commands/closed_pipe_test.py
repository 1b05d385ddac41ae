"""`memkit … | head`: every command ends quietly when its reader is gone (issue 22)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import atom_text, commit_and_index, make_memory_repo, write_atom


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = make_memory_repo(tmp_path / "team")
    write_atom(
        repo,
        "shared/ws-heartbeat-interval.md",
        atom_text(
            "ws-heartbeat-interval",
            title="WebSocket heartbeat",
            extra="triggers: [websocket]\ncolour: blue\n",  # an unknown key: a warning
        ),
    )
    commit_and_index(repo)
    return repo


@pytest.mark.parametrize(
    "args",
    [
        ["search", "websocket"],
        ["search", "websocket", "--json"],
        ["show", "ws-heartbeat-interval"],
        ["validate"],
        ["gate"],
        ["doctor"],
        ["roles", "whoami"],
        ["review", "list"],
        ["index"],
        ["add", "Always ping the websocket gateway every 30 s from mobile clients", "--dry-run"],
        ["health"],
        ["health", "--markdown"],
        ["candidates", "list"],
        ["promote"],
        ["archive", "--suggest"],
        ["audit", "--all"],
        ["--help"],
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_a_closed_pipe_ends_every_command_quietly(repo: Path, args: list[str]) -> None:
    """`memkit … | head`: the reader is gone before memkit writes."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "memkit", *args],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    with proc.stderr:
        err = proc.stderr.read().decode()
    code = proc.wait(timeout=120)
    if args == ["--help"]:
        assert code in (0, 141), err  # argparse prints help before memkit's boundary
    else:
        assert code == 141, err
    assert "Traceback" not in err and "internal error" not in err
    assert "Exception ignored" not in err and "Broken pipe" not in err
    logs = Path(os.environ["MEMKIT_LOG_DIR"])
    assert not logs.exists() or not list(logs.glob("crash-*"))
