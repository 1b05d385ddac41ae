"""A memory repository another local user could have planted is refused by every command and
hook, as git refuses a repository of another user (issue 28, item 4).

The second user is a uid with no account (65534, `nobody`): the tests chown to it, which needs
root, as the machine and CI run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import commit_and_index, git, make_memory_repo, memkit, run_hook, write_atom
from tests.recall.trust_test import DEPLOY, IDLE, NOBODY, PROMPT, chown_tree, needs_root

pytestmark = needs_root
REFUSED = "refusing the memory repository"


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    """A memory repository of another user, indexed, in a world-writable folder (`/tmp/s`),
    with a folder of the victim's inside it."""
    shared = tmp_path / "s"
    make_memory_repo(shared, hooks=False)
    write_atom(shared, "shared/deploy-steps.md", DEPLOY)
    commit_and_index(shared)
    (shared / "victim-project").mkdir()
    chown_tree(shared, NOBODY)
    shared.chmod(0o777)
    os.chown(shared / "victim-project", 0, 0)
    return shared


def logged(home: Path) -> str:
    log = Path(os.environ["MEMKIT_LOG_DIR"]) / "hooks.log"
    return log.read_text(encoding="utf-8") if log.exists() else ""


def test_search_mcp_and_install_refuse_a_repository_of_another_user(planted: Path) -> None:
    cwd = planted / "victim-project"
    search = memkit("search", "deploy", cwd=cwd)
    assert search.returncode == 1, search.stdout + search.stderr
    assert REFUSED in search.stderr and "owned by" in search.stderr
    assert f"safe.directory {planted}" in search.stderr
    assert "blue-green" not in search.stdout
    # The MCP server as the plugin starts it: no --repo, the project's folder.
    mcp = subprocess.run(
        [sys.executable, "-m", "memkit", "mcp"],
        cwd=cwd,
        env={**os.environ, "CLAUDE_PROJECT_DIR": str(cwd)},
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert mcp.returncode == 1 and REFUSED in mcp.stderr, mcp.stderr
    install = memkit("install", "claude", cwd=cwd)
    assert install.returncode == 1 and REFUSED in install.stderr, install.stderr
    assert not (cwd / ".claude").exists() and not (cwd / ".mcp.json").exists()
    named = memkit("search", "deploy", "--repo", str(planted), cwd=cwd)
    assert named.returncode == 1 and REFUSED in named.stderr


def test_every_command_refuses_it_and_the_engine_does_not_start(planted: Path) -> None:
    cwd = planted / "victim-project"
    for args in (["validate"], ["index"], ["show", "deploy-steps"], ["doctor"], ["serve"]):
        result = memkit(*args, cwd=cwd)
        assert result.returncode == 1, (args, result.stdout, result.stderr)
        assert REFUSED in result.stderr, args
        assert "blue-green" not in result.stdout


def test_hooks_named_or_not_answer_nothing_and_log_why(planted: Path) -> None:
    cwd = planted / "victim-project"
    for repos in ((), (planted,)):
        for event in ("session-start", "user-prompt-submit"):
            result = run_hook(
                event, {**PROMPT, "cwd": str(cwd)}, cwd, *repos, engine=True, env=IDLE
            )
            assert (result.returncode, result.stdout) == (0, ""), result.stderr
    assert f"{REFUSED} {planted}" in logged(cwd)


def test_a_repository_of_mine_in_a_folder_others_can_write_is_refused(tmp_path: Path) -> None:
    # Anyone may rename my folder away in there and put theirs in its place.
    open_folder = tmp_path / "open"
    open_folder.mkdir()
    repo = make_memory_repo(open_folder / "team", hooks=False)
    write_atom(repo, "shared/deploy-steps.md", DEPLOY)
    commit_and_index(repo)
    open_folder.chmod(0o777)
    result = memkit("search", "deploy", cwd=repo)
    assert result.returncode == 1 and "which others can write to" in result.stderr
    prompt = run_hook("user-prompt-submit", {**PROMPT, "cwd": str(repo)}, repo, repo)
    assert (prompt.returncode, prompt.stdout) == (0, "")
    # The sticky bit (as on /tmp) keeps others from renaming what is mine: trusted.
    open_folder.chmod(0o1777)
    assert "deploy-steps" in memkit("search", "deploy", cwd=repo).stdout
    prompt = run_hook("user-prompt-submit", {**PROMPT, "cwd": str(repo)}, repo, repo)
    assert "deploy-steps" in prompt.stdout
    # A folder of another user above it: they may rename it, whatever its mode.
    open_folder.chmod(0o755)
    os.chown(open_folder, NOBODY, NOBODY)
    result = memkit("search", "deploy", cwd=repo)
    assert result.returncode == 1 and f"lies in {open_folder}, which belongs to" in result.stderr


def test_a_memkit_folder_of_another_user_is_refused(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team", hooks=False)
    write_atom(repo, "shared/deploy-steps.md", DEPLOY)
    commit_and_index(repo)
    chown_tree(repo / ".memkit", NOBODY)
    result = memkit("search", "deploy", cwd=repo)
    assert result.returncode == 1 and "its .memkit/ is not a folder of yours" in result.stderr
    prompt = run_hook("user-prompt-submit", {**PROMPT, "cwd": str(repo)}, repo, repo)
    assert (prompt.returncode, prompt.stdout) == (0, "")
    # A symlink in its place, to a folder of mine, is not mine to trust either.
    shutil.rmtree(repo / ".memkit")
    (tmp_path / "elsewhere").mkdir()
    (repo / ".memkit").symlink_to(tmp_path / "elsewhere")
    assert memkit("search", "deploy", cwd=repo).returncode == 1


def test_the_warm_engine_serves_no_repository_of_another_user(
    tmp_path: Path, planted: Path
) -> None:
    from tests.helpers import start_engine

    mine = make_memory_repo(tmp_path / "team", hooks=False)
    ours = DEPLOY.replace("deploy-steps", "release-train").replace("blue-green", "weekly")
    write_atom(mine, "shared/release-train.md", ours)
    commit_and_index(mine)
    engine = start_engine(mine, "--idle", "30")
    try:
        # The hook names both (as `memkit install claude --repo A --repo B` writes them).
        payload = {**PROMPT, "cwd": str(mine)}
        result = run_hook("user-prompt-submit", payload, mine, mine, planted, engine=True, env=IDLE)
        assert result.returncode == 0
        assert "release-train" in result.stdout
        assert "deploy-steps" not in result.stdout and "blue-green" not in result.stdout
    finally:
        engine.terminate()
        engine.communicate(timeout=30)


def test_git_safe_directory_lifts_the_refusal_and_install_says_what_it_wires(
    planted: Path,
) -> None:
    cwd = planted / "victim-project"
    git(cwd, "config", "--global", "--add", "safe.directory", str(planted))
    assert "deploy-steps" in memkit("search", "deploy", cwd=cwd).stdout
    install = memkit("install", "claude", cwd=cwd)
    assert install.returncode == 0, install.stderr
    assert f"wiring the memory repository {planted}" in install.stdout
    settings = json.loads((cwd / ".claude/settings.json").read_text(encoding="utf-8"))
    assert "hooks" in settings


def test_a_memory_folder_another_user_can_write_to_is_not_served(tmp_path: Path) -> None:
    """Issue 40: a world-writable shared/ of another local user was served."""
    repo = make_memory_repo(tmp_path / "team", hooks=False)
    write_atom(repo, "shared/deploy-steps.md", DEPLOY)
    commit_and_index(repo)
    shared = repo / "shared"
    os.chown(shared, NOBODY, NOBODY)
    shared.chmod(0o777)
    result = memkit("search", "deploy", cwd=repo)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{REFUSED} {repo}: its shared/ belongs to" in result.stderr
    prompt = run_hook("user-prompt-submit", {**PROMPT, "cwd": str(repo)}, repo, repo)
    assert (prompt.returncode, prompt.stdout) == (0, "")
    os.chown(shared, os.geteuid(), os.getegid())
    assert "its shared/ can be written by others" in memkit("search", "deploy", cwd=repo).stderr
    shared.chmod(0o755)
    assert "deploy-steps" in memkit("search", "deploy", cwd=repo).stdout
    # Deeper in the memory: that folder's atoms are left out, the rest is served.
    ops = shared / "ops"
    ops.mkdir()
    write_atom(repo, "shared/ops/ops-steps.md", DEPLOY.replace("deploy-steps", "ops-steps"))
    git(repo, "rm", "-q", "--cached", "shared/deploy-steps.md")
    (shared / "deploy-steps.md").unlink()
    ops.chmod(0o777)
    indexed = memkit("index", cwd=repo)
    assert "shared/ops can be written by others" in indexed.stderr, indexed.stderr
    assert "ops-steps" not in memkit("search", "deploy", cwd=repo).stdout
    ops.chmod(0o755)
    assert memkit("index", cwd=repo).returncode == 0
    assert "ops-steps" in memkit("search", "deploy", cwd=repo).stdout
