"""The hook that would serve a stale atom says so beside it and ranks it lower (issue 44):
"may be stale: ..." from the last `memkit drift`, only while the atom is as it was checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.drift.project import change_everything, code_project
from tests.helpers import (
    atom_text,
    commit_and_index,
    context,
    engine_running,
    git,
    make_memory_repo,
    memkit,
    run_hook,
    write_atom,
)


@pytest.fixture
def stale_memory(tmp_path: Path) -> tuple[Path, Path]:
    """Two atoms answer "how many retries does the worker make": one the code now
    contradicts (config/worker.yaml holds 8), one it does not name at all."""
    memory = make_memory_repo(tmp_path / "team-memory")
    write_atom(
        memory,
        "shared/worker-retries.md",
        atom_text(
            "worker-retries",
            title="Worker retries",
            body="- The worker retries a failed job: `max_retries: 5` in `config/worker.yaml`.",
            extra='triggers: [retries]\npaths: ["config/**"]\n',
        ),
    )
    write_atom(
        memory,
        "shared/worker-backoff.md",
        atom_text(
            "worker-backoff",
            title="Worker retries back off",
            body="- Between retries of a failed job the worker waits twice as long each time.",
            extra="triggers: [retries]\n",
        ),
    )
    commit_and_index(memory)
    app = code_project(tmp_path / "app")
    change_everything(app)
    assert memkit("drift", "--project", str(app), cwd=memory).returncode == 1
    return memory, app


PROMPT = {"prompt": "How many retries does the worker make for a failed job?", "session_id": "s1"}


def test_the_prompt_hook_says_may_be_stale_and_ranks_it_lower(
    stale_memory: tuple[Path, Path],
) -> None:
    memory, _app = stale_memory
    text = context(run_hook("user-prompt-submit", PROMPT, memory, memory), "UserPromptSubmit")
    stale_at = text.index("## worker-retries")
    assert text.index("## worker-backoff") < stale_at  # the fresh one first
    block = text[stale_at:]
    assert (
        "(may be stale: `max_retries` is 8 in `config/worker.yaml` now (the atom says 5)" in block
    )
    assert text.count("may be stale") == 1  # the fresh atom has none


def test_an_atom_fixed_since_the_check_is_not_called_stale(stale_memory: tuple[Path, Path]) -> None:
    memory, _app = stale_memory
    path = memory / "shared/worker-retries.md"
    path.write_text(
        path.read_text(encoding="utf-8").replace("max_retries: 5", "max_retries: 8"),
        encoding="utf-8",
    )
    commit_and_index(memory, "eight")
    text = context(run_hook("user-prompt-submit", PROMPT, memory, memory), "UserPromptSubmit")
    assert "## worker-retries" in text and "may be stale" not in text


def test_before_a_file_is_read_the_line_is_there_too(stale_memory: tuple[Path, Path]) -> None:
    memory, app = stale_memory
    payload = {
        "tool_name": "Read",
        "tool_input": {"file_path": str(app / "config/worker.yaml")},
        "session_id": "s2",
    }
    text = context(
        run_hook("pre-tool-use", payload, app, memory, env={"CLAUDE_PROJECT_DIR": str(app)})
    )
    assert "paths 'config/**' matches config/worker.yaml" in text
    assert "(may be stale: `max_retries` is 8 in `config/worker.yaml` now" in text


@pytest.mark.slow
def test_the_warm_engine_learns_of_a_new_check(stale_memory: tuple[Path, Path]) -> None:
    memory, app = stale_memory
    with engine_running(memory):
        first = context(run_hook("user-prompt-submit", PROMPT, memory, memory, engine=True))
        assert "may be stale: `max_retries` is 8" in first
        worker = app / "config/worker.yaml"
        worker.write_text(
            worker.read_text(encoding="utf-8").replace("max_retries: 8", "max_retries: 5"),
            encoding="utf-8",
        )
        git(app, "commit", "-qam", "back to five")
        assert memkit("drift", "--project", str(app), cwd=memory).returncode == 0
        again = context(
            run_hook(
                "user-prompt-submit", {**PROMPT, "session_id": "s9"}, memory, memory, engine=True
            )
        )
        assert "## worker-retries" in again and "may be stale" not in again
