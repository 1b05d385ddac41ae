"""memkit doctor on real clones: what is set up, what is not, and the command that fixes it."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from tests.helpers import (
    atom_text,
    commit_and_index,
    engine_running,
    git,
    heartbeat_repo,
    join_clone,
    make_memory_repo,
    memkit,
    wired_project,
    write_atom,
)


def lines(out: str) -> dict[str, str]:
    """check name -> its status, from doctor's output."""
    found = {}
    for line in out.splitlines():
        status, _, rest = line.partition(" ")
        if status in ("ok", "warn", "FAIL") and ":" in rest:
            found[rest.strip().split(":", 1)[0]] = status
    return found


def test_a_set_up_repository_is_all_set(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team")
    write_atom(repo, "shared/ws-heartbeat.md", atom_text("ws-heartbeat"))
    commit_and_index(repo)
    assert memkit("install", "claude", cwd=repo).returncode == 0
    out = memkit("doctor", cwd=repo)
    assert out.returncode == 0, out.stdout + out.stderr
    checks = lines(out.stdout)
    assert checks["git hooks"] == checks["index"] == checks["embedding model"] == "ok"
    assert checks["Claude Code"] == "ok"
    assert "1 atoms, current" in out.stdout


def test_a_clone_without_hooks_is_told_how_to_join(tmp_path: Path) -> None:
    team = make_memory_repo(tmp_path / "team")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "--quiet", str(team), str(clone))
    out = memkit("doctor", cwd=clone)
    assert out.returncode == 1
    checks = lines(out.stdout)
    assert checks["git hooks"] == "FAIL"
    assert checks["clone guard"] == "warn"  # a pushed .memkit would replace its state
    assert checks["index"] == "FAIL"  # never built in this clone
    assert "fix: memkit init --join" in out.stdout
    assert "fix: memkit index" in out.stdout
    assert checks["Claude Code"] == "ok"  # the memory repository: wired in code projects
    assert memkit("init", "--join", cwd=clone).returncode == 0
    assert memkit("index", cwd=clone).returncode == 0
    after = lines(memkit("doctor", cwd=clone).stdout)
    assert after["git hooks"] == after["clone guard"] == "ok"


def test_in_the_memory_repository_doctor_has_nothing_to_say_of_claude_code(
    tmp_path: Path,
) -> None:
    """Issue 41, item 8: doctor in the memory repository ended with two warnings about its
    `.claude/settings.json` and `.mcp.json`, for teams whose agent runs in code projects."""
    team, app = wired_project(tmp_path)
    out = memkit("doctor", cwd=team)
    assert out.returncode == 0, out.stdout
    checks = lines(out.stdout)
    assert checks["Claude Code"] == "ok" and "MCP server" not in checks
    assert "wired in code projects, not in the memory repository" in out.stdout
    assert "memkit doctor: all set" in out.stdout
    # In the code project, its wiring is checked as before.
    assert lines(memkit("doctor", cwd=app).stdout)["MCP server"] in ("ok", "warn")
    # A memory repository that is wired itself is checked as a project.
    assert memkit("install", "claude", cwd=team).returncode == 0
    assert "MCP server" in lines(memkit("doctor", cwd=team).stdout)


def test_stale_index_invalid_atoms_and_a_missing_model_are_named(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team")
    write_atom(repo, "shared/draft.md", atom_text("draft", type_="pitfal"))
    commit_and_index(repo)
    write_atom(repo, "shared/new-one.md", atom_text("new-one"))  # not indexed yet
    (repo / "memkit.yaml").write_text("embedding:\n  model: ./no-such-model\n", encoding="utf-8")
    out = memkit("doctor", cwd=repo)
    assert out.returncode == 1
    checks = lines(out.stdout)
    assert checks["index"] == "warn"
    assert checks["invalid atoms"] == "warn"
    assert "shared/draft.md" in out.stdout
    assert checks["embedding model"] == "FAIL"
    assert "no-such-model" in out.stdout


def test_a_teammates_project_says_what_is_missing_instead_of_all_set(tmp_path: Path) -> None:
    team, app = wired_project(tmp_path / "alice")
    bob = tmp_path / "elsewhere" / "bob"
    bob.mkdir(parents=True)
    git(bob, "clone", "--quiet", str(app), "app")
    out = memkit("doctor", cwd=bob / "app")
    assert out.returncode == 1, out.stdout + out.stderr
    assert "all set" not in out.stdout
    checks = lines(out.stdout)
    assert checks["Claude Code wiring"] == "FAIL"
    assert f"../team-memory in .mcp.json: {bob / 'team-memory'} does not exist" in out.stdout
    assert checks["MCP server"] == "FAIL"  # it has no repository to serve

    join_clone(team, bob / "team-memory", "bob@example.com")
    assert memkit("index", cwd=bob / "team-memory").returncode == 0
    out = memkit("doctor", cwd=bob / "app")
    assert out.returncode == 0, out.stdout + out.stderr
    checks = lines(out.stdout)
    assert checks["memory repository"] == checks["Claude Code wiring"] == "ok"
    assert str(bob / "team-memory") in out.stdout and str(tmp_path / "alice") not in out.stdout
    assert checks["MCP server"] in ("ok", "warn")  # warn: slower than 2 s on a loaded machine
    assert "answers `initialize` in" in out.stdout or "only after" in out.stdout


def test_a_path_of_one_machine_in_the_committed_files_is_named(tmp_path: Path) -> None:
    team = heartbeat_repo(tmp_path / "team")
    app = tmp_path / "work" / "deep" / "app"
    (app / ".claude").mkdir(parents=True)
    # What an older memkit wrote: absolute paths in the files the team commits.
    hook = {"type": "command", "command": f"memkit-hook user-prompt-submit --repo {team}"}
    settings = {"hooks": {"UserPromptSubmit": [{"hooks": [hook]}]}}
    (app / ".claude/settings.json").write_text(json.dumps(settings), encoding="utf-8")
    server = {"type": "stdio", "command": "memkit", "args": ["mcp", "--repo", str(team)]}
    (app / ".mcp.json").write_text(json.dumps({"mcpServers": {"memkit": server}}), "utf-8")
    out = memkit("doctor", cwd=app)
    warned = [line for line in out.stdout.splitlines() if "a path of this machine" in line]
    assert len(warned) == 2, out.stdout
    assert ".claude/settings.json names" in warned[0] and ".mcp.json names" in warned[1]
    assert "fix: memkit install claude" in out.stdout

    assert memkit("install", "claude", "--repo", str(team), cwd=app).returncode == 0
    out = memkit("doctor", cwd=app)
    assert "a path of this machine" not in out.stdout  # now in the user's own settings
    assert lines(out.stdout)["Claude Code wiring"] == "ok"


def test_doctor_asks_the_engine_and_the_mcp_server(tmp_path: Path) -> None:
    repo = heartbeat_repo(tmp_path / "team")
    assert memkit("install", "claude", cwd=repo).returncode == 0
    with engine_running(repo, "--idle", "60"):
        out = memkit("doctor", cwd=repo)
        assert lines(out.stdout)["warm engine answers"] == "ok", out.stdout
    # Something that takes the engine's socket and never answers.
    hung = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    hung.bind(str(repo / ".memkit/engine.sock"))
    hung.listen(8)
    try:
        out = memkit("doctor", cwd=repo)
    finally:
        hung.close()
    assert out.returncode == 1
    assert lines(out.stdout)["warm engine answers"] == "FAIL", out.stdout
    assert "did not answer a search" in out.stdout

    # A server that cannot start (its repository is gone) is named, not "all set".
    (repo / ".memkit/engine.sock").unlink()
    mcp = repo / ".mcp.json"
    config = json.loads(mcp.read_text(encoding="utf-8"))
    config["mcpServers"]["memkit"]["args"] = ["mcp", "--repo", "no-such-memory"]
    mcp.write_text(json.dumps(config), encoding="utf-8")
    out = memkit("doctor", cwd=repo)
    assert out.returncode == 1 and lines(out.stdout)["MCP server"] == "FAIL"
    assert "not a memory repository" in out.stdout
