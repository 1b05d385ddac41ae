"""Day one for a member (`memkit.onboard`): the git hooks without memkit's environment
active, a clone whose checkout failed, and how a pull meets a member's own commit."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from memkit.onboard import hooked_memkit, install_git_hooks
from tests.helpers import atom_text, git, make_memory_repo, memkit, write_atom

# A shell whose PATH has git but not memkit: memkit's virtual environment is not active.
BARE_PATH = "/usr/bin:/bin"


def without_memkit() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = BARE_PATH
    return env


def run_git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=False, env=without_memkit()
    )


def test_the_hooks_find_memkit_with_its_environment_inactive(tmp_path: Path) -> None:
    """Issue 41, item 6: with the venv not active every commit failed with "Executable
    `memkit` not found" and `git checkout` exited 1."""
    repo = make_memory_repo(tmp_path / "team")
    assert subprocess.run(["which", "memkit"], env=without_memkit(), check=False).returncode
    write_atom(repo, "shared/ws-heartbeat.md", atom_text("ws-heartbeat"))
    run_git(repo, "add", "-A")
    done = run_git(repo, "commit", "-m", "an atom")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "memkit validate" in done.stdout + done.stderr
    assert run_git(repo, "checkout", "-q", "-b", "elsewhere").returncode == 0
    assert hooked_memkit(repo) == Path(os.environ["PATH"].split(os.pathsep)[0]) / "memkit"


def test_with_memkit_gone_a_commit_says_what_to_do_and_checkout_goes_on(
    tmp_path: Path,
) -> None:
    repo = make_memory_repo(tmp_path / "team")
    install_git_hooks(repo, bindir=tmp_path / "deleted-venv" / "bin")
    write_atom(repo, "shared/ws-heartbeat.md", atom_text("ws-heartbeat"))
    run_git(repo, "add", "-A")
    done = run_git(repo, "commit", "-m", "an atom")
    said = done.stdout + done.stderr
    assert done.returncode == 1, said
    assert "`memkit` is not on PATH, nor where it was installed" in said
    assert str(tmp_path / "deleted-venv" / "bin" / "memkit") in said
    assert "(`. <venv>/bin/activate`)" in said and "pipx install" in said
    assert "Executable `memkit` not found" not in said
    checkout = run_git(repo, "checkout", "-q", "-b", "elsewhere")
    assert checkout.returncode == 0, checkout.stderr
    assert "not on PATH" in checkout.stderr
    # Installing the hooks again (as `memkit init --join` does) writes the lookup once.
    install_git_hooks(repo)
    hook = (repo / ".git/hooks/pre-commit").read_text(encoding="utf-8")
    assert hook.count("# memkit: find memkit") == 1 and "deleted-venv" not in hook
    assert run_git(repo, "commit", "-m", "an atom").returncode == 0


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    """A bare remote holding a memory on `main`."""
    made = make_memory_repo(tmp_path / "made")
    bare = tmp_path / "origin.git"
    git(tmp_path, "clone", "--quiet", "--bare", str(made), str(bare))
    return bare


def test_a_clone_whose_checkout_failed_is_told_to_check_out_the_memory(
    origin: Path, tmp_path: Path
) -> None:
    """Item 7: the remote's HEAD names a branch it does not have; join said "not a memory
    repository (use `memkit init PATH` to make one)", which made a second repository."""
    git(origin, "symbolic-ref", "HEAD", "refs/heads/master")
    clone = tmp_path / "clone"
    cloned = git(tmp_path, "clone", str(origin), str(clone), check=False)
    assert "unable to checkout" in cloned.stderr
    joined = memkit("init", "--join", cwd=clone)
    assert joined.returncode == 2
    assert "memkit init PATH" not in joined.stderr
    assert "the memory is on `origin/main`: check it out with `git checkout main`" in joined.stderr
    git(clone, "checkout", "main")
    again = memkit("init", "--join", cwd=clone)
    assert again.returncode == 0, again.stderr
    assert not (clone / "memkit.yaml").is_symlink() and git(clone, "status", "--short").stdout == ""


def test_join_lets_pull_rebase_unless_the_person_chose(origin: Path, tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    git(tmp_path, "clone", "--quiet", str(origin), str(mine))
    assert memkit("init", "--join", cwd=mine).returncode == 0
    assert git(mine, "config", "pull.rebase").stdout.strip() == "true"
    assert git(mine, "config", "rebase.autoStash").stdout.strip() == "true"
    theirs = tmp_path / "theirs"
    git(tmp_path, "clone", "--quiet", str(origin), str(theirs))
    git(theirs, "config", "pull.ff", "only")
    joined = memkit("init", "--join", cwd=theirs)
    assert "pull.rebase" not in joined.stdout
    assert git(theirs, "config", "--local", "pull.rebase", check=False).stdout == ""
