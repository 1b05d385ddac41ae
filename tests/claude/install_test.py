"""memkit install claude: settings merged idempotently, repositories named portably."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import git, make_memory_repo, memkit


def test_install_names_each_repository_and_changes_nothing_the_second_time(
    tmp_path: Path,
) -> None:
    project = tmp_path / "work" / "project"
    inside = make_memory_repo(project / "memory")
    beside = make_memory_repo(tmp_path / "work" / "team memory")
    outside = make_memory_repo(tmp_path / "elsewhere" / "personal memory")
    git(project, "init", "-q")
    settings = project / ".claude/settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"permissions": {"allow": ["Read"]}}), encoding="utf-8")

    args = ["install", "claude", "--project", str(project), "--repo", str(inside)]
    args += ["--repo", str(beside), "--repo", str(outside)]
    result = memkit(*args, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    first = settings.read_bytes()
    data = json.loads(first)
    # Reading memory is granted; saving stays the user's to allow.
    grants = ["mcp__memkit__search", "mcp__memkit__get", "mcp__memkit__timeline"]
    assert data["permissions"] == {"allow": ["Read", *grants]}
    assert set(data["hooks"]) == {
        "SessionStart",
        "SubagentStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PreCompact",
        "Stop",
        "SessionEnd",
    }
    command = data["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    # In or beside the project: relative to it, so the committed settings work in every clone.
    assert command == (
        'memkit-hook user-prompt-submit --repo "$CLAUDE_PROJECT_DIR"/memory '
        "--repo \"$CLAUDE_PROJECT_DIR\"/'../team memory'"
    )
    assert data["hooks"]["PreToolUse"][0]["matcher"] == "Read|Edit|Write|MultiEdit"
    mcp = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))
    assert mcp["mcpServers"]["memkit"]["args"] == [
        "mcp",
        "--repo",
        "memory",
        "--repo",
        "../team memory",
    ]
    # No path of this machine in what the team commits; the personal repository is named in
    # the user's own settings, which git is told to leave out.
    for committed in (settings, project / ".mcp.json"):
        assert str(tmp_path) not in committed.read_text(encoding="utf-8")
    local = json.loads((project / ".claude/settings.local.json").read_text(encoding="utf-8"))
    assert local == {"env": {"MEMKIT_REPOS": str(outside.resolve())}}
    assert "personal memory" in result.stdout and "settings.local.json" in result.stdout
    status = git(project, "status", "--porcelain", "--untracked-files=all").stdout
    assert ".claude/settings.json" in status and "settings.local.json" not in status

    assert memkit(*args, cwd=tmp_path).returncode == 0
    assert settings.read_bytes() == first

    uninstall = memkit("install", "claude", "--project", str(project), "--uninstall", cwd=tmp_path)
    assert uninstall.returncode == 0
    assert json.loads(settings.read_text(encoding="utf-8")) == {"permissions": {"allow": ["Read"]}}
    assert not (project / ".claude/settings.local.json").exists()
    assert not (project / ".mcp.json").exists()


def test_install_refuses_to_touch_settings_it_cannot_read(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team")
    settings = repo / ".claude/settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text("{not json", encoding="utf-8")
    result = memkit("install", "claude", cwd=repo)
    assert result.returncode != 0 and "not valid JSON" in result.stderr
    assert settings.read_text(encoding="utf-8") == "{not json"

    plain = tmp_path / "plain"
    plain.mkdir()
    result = memkit("install", "claude", "--project", str(plain), cwd=plain)
    assert result.returncode != 0 and "--repo" in result.stderr
    assert not (plain / ".claude").exists()


def test_install_claude_twice_says_already_installed(heartbeat_team: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    args = ("install", "claude", "--project", str(project), "--repo", str(heartbeat_team))
    first = memkit(*args, cwd=tmp_path)
    assert first.stdout.startswith("memkit: installed memkit's hooks in ")
    again = memkit(*args, cwd=tmp_path)
    assert again.stdout.startswith("memkit: memkit's hooks are already installed in ")
    off = ("install", "claude", "--project", str(project), "--uninstall")
    assert memkit(*off, cwd=tmp_path).stdout.startswith("memkit: removed memkit's hooks from")
    assert memkit(*off, cwd=tmp_path).stdout.startswith("memkit: memkit's hooks were not in")
