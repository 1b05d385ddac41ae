"""memkit install claude: settings merged idempotently, repositories named portably."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import make_memory_repo, memkit


def test_install_names_each_repository_and_changes_nothing_the_second_time(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    inside = make_memory_repo(project / "memory")
    outside = make_memory_repo(tmp_path / "personal memory")
    settings = project / ".claude/settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"permissions": {"allow": ["Read"]}}), encoding="utf-8")

    args = ("install", "claude", "--project", str(project), "--repo", str(inside))
    result = memkit(*args, "--repo", str(outside), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    first = settings.read_bytes()
    data = json.loads(first)
    assert data["permissions"] == {"allow": ["Read"]}
    assert set(data["hooks"]) == {
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PreCompact",
        "Stop",
        "SessionEnd",
    }
    command = data["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    # Inside the project: relative to it, so the committed settings work in every clone.
    assert '--repo "$CLAUDE_PROJECT_DIR"/memory' in command
    assert f"--repo '{outside.resolve()}'" in command  # quoted: the path has a space
    assert data["hooks"]["PreToolUse"][0]["matcher"] == "Read|Edit|Write|MultiEdit"

    assert memkit(*args, "--repo", str(outside), cwd=tmp_path).returncode == 0
    assert settings.read_bytes() == first

    uninstall = memkit("install", "claude", "--project", str(project), "--uninstall", cwd=tmp_path)
    assert uninstall.returncode == 0
    assert json.loads(settings.read_text(encoding="utf-8")) == {"permissions": {"allow": ["Read"]}}


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
