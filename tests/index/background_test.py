"""A fresh clone's first index does not hold up git, and a long `memkit index` shows its
progress on a terminal only (issue 18)."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memkit.index.progress import SHOW_FROM
from memkit.index.store import current_generation
from tests.helpers import atom_text, git, make_memory_repo, memkit, wait_for, write_atom


def _atoms(repo: Path, count: int) -> None:
    for n in range(count):
        write_atom(
            repo,
            f"shared/note-{n}.md",
            atom_text(f"note-{n}", title=f"Note {n}", body=f"- Queue {n} retries every {n} s."),
        )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "atoms")


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory, module_home: Callable[[], Any]) -> Path:
    with module_home():
        repo = make_memory_repo(tmp_path_factory.mktemp("big") / "team")
        _atoms(repo, SHOW_FROM + 20)
    return repo


def test_a_large_first_build_after_checkout_goes_to_the_background(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_memory_repo(tmp_path / "team")  # the git hooks installed
    _atoms(repo, 30)
    monkeypatch.setenv("MEMKIT_INDEX_BACKGROUND", "20")  # "large" for this test
    lock_path = repo / ".memkit" / "index" / "write.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("a") as lock:
        # Whatever builds must wait for this lock: the checkout returns all the same.
        fcntl.flock(lock, fcntl.LOCK_EX)
        started = time.monotonic()
        checkout = git(repo, "checkout", "-q", "-b", "feature")  # post-checkout hook
        took = time.monotonic() - started
        time.sleep(1)  # the background build reaches the lock while it is held: it waits
        assert checkout.returncode == 0, checkout.stderr
        assert current_generation(repo) is None
        fcntl.flock(lock, fcntl.LOCK_UN)
    assert took < 30
    # Nobody runs anything more: the background build, waiting for the lock, does it.
    wait_for(lambda: current_generation(repo) is not None, 60)
    found = memkit("search", "queue 7 retries", "--json", cwd=repo)
    assert '"note-7"' in found.stdout


def test_a_small_first_build_after_checkout_is_done_before_git_returns(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team")
    _atoms(repo, 5)
    git(repo, "checkout", "-q", "-b", "feature")
    assert current_generation(repo) is not None


def test_a_hook_leaves_a_running_build_alone(big: Path) -> None:
    lock_path = big / ".memkit" / "index" / "write.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        result = memkit("index", "--quiet", "--foreground", cwd=big)  # as a hook, no waiting
        assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def _on_a_terminal(args: list[str], cwd: Path) -> str:
    """What `memkit` writes to a terminal (stdout and stderr both on a pty)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "memkit", *args],
        cwd=cwd,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env={**os.environ, "TERM": "xterm"},
    )
    os.close(slave)
    out = b""
    while True:
        ready, _, _ = select.select([master], [], [], 120)
        if not ready:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    assert proc.wait(timeout=120) == 0
    return out.decode("utf-8", "replace")


def test_a_long_build_shows_a_progress_bar_on_a_terminal_only(big: Path) -> None:
    shown = _on_a_terminal(["index", "--full"], big)
    assert "\rmemkit index: [" in shown and f"/{SHOW_FROM + 20:,} atoms" in shown
    assert "\r\x1b[K" in shown  # erased before the summary line
    assert f"memkit index: {SHOW_FROM + 20} atom(s)" in shown
    piped = memkit("index", "--full", cwd=big)
    assert piped.returncode == 0
    assert "[" not in piped.stderr and "\r" not in piped.stderr + piped.stdout
    assert _on_a_terminal(["index", "--full", "--quiet"], big) == ""
