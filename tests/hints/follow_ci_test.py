"""The hint harness for the CI role (`tests/hints/cases.py`): each finding code that
suggests a command, met as CI meets it, followed to a clean state."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.hints.cases import CASES, Case, walk
from tests.hints.team import copy_team, made_team

MINE = [c for c in CASES if c.role == "CI"]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory, module_home: Callable[[], Any]) -> Path:
    return made_team(tmp_path_factory, module_home, "hints-ci")


@pytest.mark.parametrize("case", MINE, ids=[c.name for c in MINE])
def test_the_printed_command_leads_to_a_clean_state(made: Path, tmp_path: Path, case: Case) -> None:
    walk(copy_team(made, tmp_path), case)
