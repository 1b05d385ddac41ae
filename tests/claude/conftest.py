"""The fixture of the tests that drive the real Claude Code CLI (real_cli_test.py,
sessions_test.py): a memory repository that is also the project Claude Code runs in."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import (
    atom_text,
    commit_and_index,
    make_memory_repo,
    memkit,
    write_atom,
    write_marked_atoms,
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = make_memory_repo(tmp_path / "project")
    write_marked_atoms(repo)
    write_atom(
        repo,
        "shared/socket-deadlines.md",
        atom_text(
            "socket-deadlines",
            title="Socket deadlines",
            body="- Always set a connect deadline on sockets. MEMKIT-MARK-NETPATH",
            extra='paths: ["src/net/**"]\n',
        ),
    )
    (repo / "src/net").mkdir(parents=True)
    (repo / "src/net/conn.py").write_text("TIMEOUT = 5\n", encoding="utf-8")
    commit_and_index(repo)
    result = memkit("install", "claude", cwd=repo)
    assert result.returncode == 0, result.stderr
    return repo
