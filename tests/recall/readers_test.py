"""memkit/recall/readers.py: the `Readers` a serving process makes and passes in, and the one
"open the index, heal it if missing or damaged" (memkit/index/opening.py) under it."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from memkit.index.lite import LightReader
from memkit.index.opening import MISSING, open_checked
from memkit.recall.readers import Readers
from tests.helpers import atom_text, git, heartbeat_repo, make_memory_repo, write_atom


def test_a_warm_and_a_cold_readers_in_one_process_keep_to_their_own_kind(tmp_path: Path) -> None:
    """The engine's readers stay warm, a hook's stay cold, though both live in one process
    (as in the MCP server that also answers in-process): no process-wide switch."""
    repo = heartbeat_repo(tmp_path / "team")
    assert Readers(warm=False).reader(repo) is not None  # the first cold one writes the cache
    warm, cold = Readers(warm=True), Readers(warm=False)
    opened = warm.reader(repo)
    light = cold.reader(repo)
    assert opened is not None and not isinstance(opened, LightReader)
    assert isinstance(light, LightReader)
    assert warm.reader(repo) is opened  # kept open until a new build is published
    assert warm.open_roots() == [repo] and cold.open_roots() == [repo]
    with warm.usage_log(repo) as first, warm.usage_log(repo) as second:
        assert first is second  # one connection for the warm process's life
    with cold.usage_log(repo) as first, cold.usage_log(repo) as second:
        assert first is not second
    warm.close()


# The build started in the background outlives this call, as it outlives a hook's process.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_missing_index_is_named_and_built_in_the_background(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team")
    write_atom(
        repo,
        "shared/ws-heartbeat-interval.md",
        atom_text("ws-heartbeat-interval", body="- Ping every 30 s.", extra="triggers: [ws]\n"),
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "atom")
    assert open_checked(repo, deep=False)[:2] == (None, MISSING)
    readers = Readers(warm=False)
    assert readers.reader(repo) is None
    assert readers.problems == {repo: MISSING}
    current = repo / ".memkit" / "index" / "CURRENT"
    deadline = time.monotonic() + 180  # a busy shared machine: generous
    while not current.is_file() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert readers.reader(repo) is not None
    assert readers.problems == {}
