from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from tests.helpers import heartbeat_repo, make_memory_repo

REAL_HOME = Path(os.environ.get("HOME", "~")).expanduser()
# Places memkit, git, pre-commit or Claude Code could write to in a user's home.
GUARDED = (
    ".claude",
    ".claude.json",
    ".memkit",
    ".config/memkit",
    ".gitconfig",
    ".cache/pre-commit",
    ".cache/memkit",
)


def _snapshot() -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for rel in GUARDED:
        p = REAL_HOME / rel
        out[rel] = p.stat().st_mtime if p.exists() else None
    return out


def _written_since(before: dict[str, float | None]) -> list[str]:
    """The guarded places of the real home that changed since `before` (`_snapshot`)."""
    after = _snapshot()
    return [rel for rel in GUARDED if before[rel] != after[rel]]


@pytest.fixture(scope="session")
def session_caches(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One pre-commit cache and one converted-model cache for the whole run (per worker):
    hook environments are built once, and the 70 MB converted model is made once instead
    of in every test's repository or HOME (a full suite left 10+ GB)."""
    return tmp_path_factory.mktemp("session-caches")


def _isolate(monkeypatch: pytest.MonkeyPatch, home: Path, caches: Path) -> None:
    """A throwaway HOME and a fixed git identity for everything run from here on; the
    session's shared caches (`session_caches`)."""
    monkeypatch.setenv("HOME", str(home))
    # git never looks above the run's temporary folder for a repository: a --basetemp inside
    # a checkout would otherwise make every test's `memkit init` a folder of that checkout.
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(home.parent))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Alice Test\n\temail = alice@example.com\n"
        "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("PRE_COMMIT_HOME", str(caches / "pre-commit"))
    # The per-user model cache (memkit.embedding.usercache), one for the run; tests of the
    # cache itself point it elsewhere.
    monkeypatch.setenv("MEMKIT_MODEL_CACHE", str(caches / "models"))
    monkeypatch.setenv("MEMKIT_LOG_DIR", str(home / "memkit-logs"))
    # Hooks would start a warm engine in the background; tests that want one start it.
    monkeypatch.setenv("MEMKIT_NO_ENGINE", "1")
    # A hook's deadline (5 s) guards a person's prompt; a test of what a hook answers must not
    # race it on a loaded machine (2 cores shared with other runs). The tests of the deadline
    # itself set their own.
    monkeypatch.setenv("MEMKIT_HOOK_DEADLINE", "60")
    # git hooks look for `memkit` on PATH: put this interpreter's bin folder first.
    bindir = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", bindir + os.pathsep + os.environ.get("PATH", ""))
    # An identity in the environment (common in CI) would override the one above.
    identity = [
        f"GIT_{who}_{what}" for who in ("AUTHOR", "COMMITTER") for what in ("NAME", "EMAIL")
    ]
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "EMAIL", *identity):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(scope="session", autouse=True)
def _real_home_untouched_by_the_run() -> Iterator[None]:
    """The whole run, module fixtures included, leaves the real home as it found it: a
    module-scoped fixture runs before any test's isolation, and what it writes there would
    otherwise be caught only by chance, by a test another worker runs at that moment."""
    before = _snapshot()
    yield
    changed = _written_since(before)
    assert not changed, f"the run wrote into the real home directory: {changed}"


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    session_caches: Path,
) -> Iterator[None]:
    """Every test runs with a throwaway HOME and a fixed git identity; the real home is
    checked afterwards, and a test that wrote there fails."""
    _isolate(monkeypatch, tmp_path_factory.mktemp("home"), session_caches)
    before = _snapshot()
    yield
    changed = _written_since(before)
    assert not changed, f"a test wrote into the real home directory: {changed}"


@pytest.fixture(scope="module")
def module_home(
    tmp_path_factory: pytest.TempPathFactory, session_caches: Path
) -> Callable[[], AbstractContextManager[None]]:
    """The same isolation for module-scoped fixtures (repositories several tests share): they
    are set up and torn down between tests' own isolation, so they apply it themselves, as
    `with module_home(): ...`, around what they run (an engine started there keeps it)."""
    home = tmp_path_factory.mktemp("home")

    @contextlib.contextmanager
    def isolated() -> Iterator[None]:
        with pytest.MonkeyPatch.context() as monkeypatch:
            _isolate(monkeypatch, home, session_caches)
            yield

    return isolated


@pytest.fixture
def memory_repo(tmp_path: Path) -> Path:
    """A memory repository as `memkit init` leaves it (`helpers.make_memory_repo`): real git
    with memkit's hooks, its first commit, no atoms yet."""
    return make_memory_repo(tmp_path / "team")


@pytest.fixture
def heartbeat_team(tmp_path: Path) -> Path:
    """The team's memory repository most tests start from (`helpers.heartbeat_repo`): real
    git with memkit's hooks, one committed and indexed atom (trigger `websocket`)."""
    return heartbeat_repo(tmp_path / "team")
