"""`memkit validate --fix` for MK113 (issue 39) in a team: a member following it never
changes an approved decision (that would be MK204 at their next commit); management does."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import git, memkit
from tests.hints.team import PNPM, commit, copy_team, made_team

PASTED = PNPM.replace("packages with pnpm 9;", "packages with pnpm 9;\u200b")


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory, module_home: Callable[[], Any]) -> Path:
    return made_team(tmp_path_factory, module_home, "invisible-fix")


def test_only_management_removes_invisible_characters_from_an_approved_decision(
    made: Path, tmp_path: Path
) -> None:
    team = copy_team(made, tmp_path)
    assert PASTED != PNPM
    (team.alice / "shared/use-pnpm.md").write_text(PASTED, encoding="utf-8")
    rc, out = commit(team.alice, "pasted")
    assert rc == 0 and "MK113" in out, out
    git(team.alice, "push", "--quiet", "origin", "HEAD:main")
    git(team.bob, "pull", "--quiet")

    member = memkit("validate", "--fix", cwd=team.bob)
    assert "left as it is: only management changes an approved `decision`" in member.stdout
    assert (team.bob / "shared/use-pnpm.md").read_text(encoding="utf-8") == PASTED
    assert git(team.bob, "status", "--porcelain").stdout == ""

    management = memkit("validate", "--fix", cwd=team.alice)
    assert "shared/use-pnpm.md: fixed: 1 invisible character(s) removed" in management.stdout
    assert (team.alice / "shared/use-pnpm.md").read_text(encoding="utf-8") == PNPM
    rc, out = commit(team.alice, "without the zero-width space")
    assert rc == 0 and "MK113" not in out, out
