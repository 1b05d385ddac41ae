"""The files `memkit install AGENT` writes for Codex CLI, Gemini CLI, Cursor, OpenCode and
Copilot CLI, checked against the shapes their documentation gives (docs/agents.md), and their
hooks run as the committed files say, with the JSON each agent documents sending: Cursor's
`sessionStart` gets the session's index as `additional_context` and its `beforeSubmitPrompt`
is always let through (capture only); Copilot CLI's `userPromptSubmitted` gets the prompt's
atom as `additionalContext`; a teammate's clone on another path works with no edit."""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import git, heartbeat_repo, join_clone, memkit

AGENTS = ("codex", "gemini", "cursor", "opencode", "copilot")
COMMITTED = (
    ".codex/hooks.json",
    ".codex/config.toml",
    ".gemini/settings.json",
    ".cursor/hooks.json",
    ".cursor/mcp.json",
    "opencode.json",
    ".opencode/plugin/memkit.js",
    ".github/hooks/memkit.json",
    ".mcp.json",
)
ON_TOPIC = "How often should the websocket client ping?"


def wire(folder: Path) -> tuple[Path, Path]:
    """`folder/team-memory` and beside it `folder/app`, wired for every agent and committed."""
    team = heartbeat_repo(folder / "team-memory")
    app = folder / "app"
    (app / "src").mkdir(parents=True)
    git(app, "init", "-q")
    wired = memkit("install", *AGENTS, "--repo", "../team-memory", cwd=app)
    assert wired.returncode == 0, wired.stdout + wired.stderr
    git(app, "add", "-A")
    git(app, "commit", "-q", "-m", "wire memkit")
    return team, app


@pytest.fixture(scope="module")
def layout(
    tmp_path_factory: pytest.TempPathFactory, module_home: Callable[[], Any]
) -> tuple[Path, Path]:
    with module_home():
        return wire(tmp_path_factory.mktemp("wired"))


def load(app: Path, rel: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((app / rel).read_text(encoding="utf-8"))
    return data


def committed_command(app: Path, agent: str, event: str) -> str:
    if agent == "cursor":
        return str(load(app, ".cursor/hooks.json")["hooks"][event][0]["command"])
    if agent == "copilot":
        return str(load(app, ".github/hooks/memkit.json")["hooks"][event][0]["bash"])
    rel = ".codex/hooks.json" if agent == "codex" else ".gemini/settings.json"
    return str(load(app, rel)["hooks"][event][0]["hooks"][0]["command"])


def run_committed(command: str, cwd: Path, payload: dict[str, Any]) -> str:
    """The hook as the agent runs it: its command through a shell, in `cwd`, JSON on stdin."""
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_PROJECT_DIR", "MEMKIT_REPOS")}
    result = subprocess.run(
        ["/bin/sh", "-c", command], input=json.dumps(payload), cwd=cwd,
        env={**env, "MEMKIT_NO_ENGINE": "1"}, capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_each_agent_s_files_have_its_documented_shape(layout: tuple[Path, Path]) -> None:
    _, app = layout
    for rel in COMMITTED:
        assert str(app.parent) not in (app / rel).read_text(encoding="utf-8"), rel
    codex = load(app, ".codex/hooks.json")["hooks"]
    assert set(codex) == {"SessionStart", "UserPromptSubmit", "PreCompact", "Stop", "SessionEnd"}
    hook = codex["UserPromptSubmit"][0]["hooks"][0]
    assert hook == {
        "type": "command",
        "command": "memkit-hook user-prompt-submit --agent codex --repo ../team-memory",
        "timeout": 15,
    }
    server = tomllib.loads((app / ".codex/config.toml").read_text())["mcp_servers"]["memkit"]
    assert server == {
        "command": "memkit",
        "args": ["mcp", "--agent", "codex", "--repo", "../team-memory"],
    }
    gemini = load(app, ".gemini/settings.json")
    assert set(gemini["hooks"]) == {
        "SessionStart",
        "BeforeAgent",
        "PreCompress",
        "AfterAgent",
        "SessionEnd",
    }
    assert gemini["hooks"]["BeforeAgent"][0]["hooks"][0]["timeout"] == 15000  # milliseconds
    assert gemini["mcpServers"]["memkit"]["args"][:3] == ["mcp", "--agent", "gemini"]
    cursor = load(app, ".cursor/hooks.json")
    assert cursor["version"] == 1
    assert set(cursor["hooks"]) == {"sessionStart", "beforeSubmitPrompt", "stop", "sessionEnd"}
    assert set(cursor["hooks"]["sessionStart"][0]) == {"command"}
    assert load(app, ".cursor/mcp.json")["mcpServers"]["memkit"]["command"] == "memkit"
    copilot = load(app, ".github/hooks/memkit.json")
    assert copilot["version"] == 1
    assert set(copilot["hooks"]) == {
        "sessionStart",
        "userPromptSubmitted",
        "agentStop",
        "sessionEnd",
    }
    entry = copilot["hooks"]["userPromptSubmitted"][0]
    assert set(entry) == {"type", "bash", "cwd", "timeoutSec"} and entry["type"] == "command"
    assert load(app, ".mcp.json")["mcpServers"]["memkit"]["args"] == [
        "mcp",
        "--repo",
        "../team-memory",
    ]
    opencode = load(app, "opencode.json")
    assert opencode["mcp"]["memkit"] == {
        "type": "local",
        "command": ["memkit", "mcp", "--agent", "opencode", "--repo", "../team-memory"],
        "enabled": True,
    }
    plugin = (app / ".opencode/plugin/memkit.js").read_text(encoding="utf-8")
    assert 'const ARGS = ["--agent", "opencode", "--repo", "../team-memory"];' in plugin


def test_installing_again_changes_nothing_and_uninstall_keeps_the_rest(tmp_path: Path) -> None:
    _, app = wire(tmp_path)
    hooks = load(app, ".cursor/hooks.json")
    hooks["hooks"]["sessionStart"].append({"command": "echo mine"})
    (app / ".cursor/hooks.json").write_text(json.dumps(hooks, indent=2) + "\n", encoding="utf-8")
    with (app / ".codex/config.toml").open("a", encoding="utf-8") as fh:
        fh.write('\n[mcp_servers.other]\ncommand = "other"\n')
    git(app, "commit", "-qam", "mine")
    again = memkit("install", *AGENTS, "--repo", "../team-memory", cwd=app)
    assert again.returncode == 0, again.stderr
    assert git(app, "status", "--porcelain").stdout == ""
    gone = memkit("install", *AGENTS, "--uninstall", cwd=app)
    assert gone.returncode == 0, gone.stderr
    assert load(app, ".cursor/hooks.json") == {
        "version": 1,
        "hooks": {"sessionStart": [{"command": "echo mine"}]},
    }
    config = tomllib.loads((app / ".codex/config.toml").read_text())
    assert config == {"mcp_servers": {"other": {"command": "other"}}}
    for rel in (".codex/hooks.json", ".gemini/settings.json", ".github/hooks/memkit.json"):
        assert not (app / rel).exists(), rel
    assert not (app / ".opencode/plugin/memkit.js").exists()


def test_cursor_gets_the_index_at_session_start_and_its_prompts_only_feed_capture(
    layout: tuple[Path, Path],
) -> None:
    team, app = layout
    base = {"conversation_id": "cursor-1", "generation_id": "g1", "workspace_roots": [str(app)]}
    start = {**base, "hook_event_name": "sessionStart"}
    out = json.loads(
        run_committed(committed_command(app, "cursor", "sessionStart"), app / "src", start)
    )
    assert set(out) == {"additional_context"}
    assert "<memkit-index" in out["additional_context"]
    assert "ws-heartbeat-interval · pitfall" in out["additional_context"]

    said = "from now on we review every migration in pairs, never alone"
    prompt = {**base, "hook_event_name": "beforeSubmitPrompt", "prompt": said, "attachments": []}
    answer = run_committed(committed_command(app, "cursor", "beforeSubmitPrompt"), app, prompt)
    assert json.loads(answer) == {"continue": True}
    listed = json.loads(memkit("candidates", "list", "--json", cwd=team).stdout)["candidates"]
    assert any("migration in pairs" in c["statement"] for c in listed), listed
    on_topic = {**prompt, "prompt": ON_TOPIC}
    assert json.loads(
        run_committed(committed_command(app, "cursor", "beforeSubmitPrompt"), app, on_topic)
    ) == {"continue": True}
    from memkit.recall.usage import usage_log

    with usage_log(team) as log:
        assert "ws-heartbeat-interval" not in log.given("cursor-1")  # nothing was given


def test_copilot_gets_the_prompt_s_atom_as_additional_context(layout: tuple[Path, Path]) -> None:
    _, app = layout
    command = committed_command(app, "copilot", "userPromptSubmitted")
    payload = {"timestamp": 1704614600000, "cwd": str(app), "prompt": ON_TOPIC, "sessionId": "cp-1"}
    out = json.loads(run_committed(command, app, payload))
    assert set(out) == {"additionalContext"}
    assert out["additionalContext"].startswith("<memkit-memory>")
    assert "Send a WebSocket ping every 30 s." in out["additionalContext"]
    off = {**payload, "prompt": "Tell me a short joke about cats.", "sessionId": "cp-2"}
    assert run_committed(command, app, off) == ""
    started = run_committed(
        committed_command(app, "copilot", "sessionStart"),
        app,
        {"timestamp": 1704614600000, "cwd": str(app), "source": "new", "sessionId": "cp-3"},
    )
    assert "<memkit-index" in json.loads(started)["additionalContext"]


@pytest.mark.parametrize("agent", ["codex", "gemini"])
def test_bad_input_answers_nothing_and_never_fails(agent: str, layout: tuple[Path, Path]) -> None:
    _, app = layout
    event = "UserPromptSubmit" if agent == "codex" else "BeforeAgent"
    command = committed_command(app, agent, event)
    result = subprocess.run(
        ["/bin/sh", "-c", command], input="{not json", cwd=app, capture_output=True, text=True,
        env={**os.environ, "MEMKIT_NO_ENGINE": "1"}, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0 and result.stdout == ""


def test_gemini_s_hook_context_is_not_read_as_the_prompt(layout: tuple[Path, Path]) -> None:
    """`gemini -p` puts the session start's context in front of the prompt the hooks see."""
    _, app = layout
    command = committed_command(app, "gemini", "BeforeAgent")
    index = (
        "<hook_context>&lt;memkit-index&gt; websocket heartbeat ping"
        "&lt;/memkit-index&gt;</hook_context>"
    )
    payload = {"session_id": "g-1", "cwd": str(app), "hook_event_name": "BeforeAgent"}
    assert run_committed(command, app, {**payload, "prompt": f"{index}\n\nTell me a joke."}) == ""
    out = json.loads(run_committed(command, app, {**payload, "prompt": f"{index}\n\n{ON_TOPIC}"}))
    assert out["hookSpecificOutput"]["hookEventName"] == "BeforeAgent"


def test_a_teammate_s_clone_on_another_path_works_with_no_edit(
    layout: tuple[Path, Path], tmp_path: Path
) -> None:
    team, app = layout
    bob = tmp_path / "elsewhere" / "bob"
    bob.mkdir(parents=True)
    git(bob, "clone", "--quiet", str(app), "app")
    join_clone(team, bob / "team-memory", "bob@example.com")
    assert memkit("index", cwd=bob / "team-memory").returncode == 0
    (bob / "app/src").mkdir()  # a session in a subfolder of the project
    payload = {"session_id": "bob-1", "cwd": str(bob / "app/src"), "prompt": ON_TOPIC}
    out = run_committed(
        committed_command(bob / "app", "codex", "UserPromptSubmit"), bob / "app/src", payload
    )
    assert (
        "Send a WebSocket ping every 30 s."
        in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    )
    again = memkit("install", *AGENTS, "--repo", "../team-memory", cwd=bob / "app")
    assert again.returncode == 0 and git(bob / "app", "status", "--porcelain").stdout == ""


def test_every_command_in_a_wired_code_project_serves_the_memory_it_names(tmp_path: Path) -> None:
    """Issue 42: in the code project (on another path than the memory's clone), `memkit
    search`, `show` and `candidates` answer from the memory its files name, and nothing is
    made there; a folder wired to nothing says it is not a memory repository."""
    team, app = wire(tmp_path / "team")
    src = app / "src"
    found = memkit("search", "websocket", "ping", cwd=src)
    assert found.returncode == 0 and "ws-heartbeat-interval" in found.stdout, found.stdout
    shown = memkit("show", "ws-heartbeat-interval", cwd=src)
    assert shown.returncode == 0 and "Send a WebSocket ping every 30 s." in shown.stdout
    assert memkit("candidates", "list", cwd=src).returncode == 0
    assert not (app / ".memkit").exists() and not (src / ".memkit").exists()
    assert git(app, "status", "--porcelain", "--untracked-files=all").stdout == ""

    plain = tmp_path / "plain"
    plain.mkdir()
    git(plain, "init", "-q")
    refused = memkit("search", "websocket", cwd=plain)
    assert refused.returncode == 1 and "not a memory repository" in refused.stderr
    assert not (plain / ".memkit").exists()

    (team.parent / "moved").mkdir()
    team.rename(team.parent / "moved" / "team-memory")
    gone = memkit("show", "ws-heartbeat-interval", cwd=app)
    assert (
        gone.returncode == 1 and "../team-memory" in gone.stderr and "does not exist" in gone.stderr
    )


def test_doctor_names_each_wired_agent(layout: tuple[Path, Path]) -> None:
    _, app = layout
    report = memkit("doctor", cwd=app).stdout
    for name in ("Codex CLI", "Gemini CLI", "Cursor", "OpenCode", "Copilot CLI"):
        assert f" {name}: " in report, report
    assert "ok   Gemini CLI: hooks and MCP server wired; memory: ../team-memory" in report
    assert "warn Codex CLI: wired, but Codex runs a project's hooks only in a trusted" in report
