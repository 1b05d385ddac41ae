"""memkit's hooks driven by the real Claude Code CLI, offline, against a fake API."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.claude.fake_api import FakeAPI, fake_api, tool_results
from tests.helpers import (
    atom_text,
    commit_and_index,
    git,
    join_clone,
    make_memory_repo,
    memkit,
    wired_project,
    write_atom,
)

ROOT = Path(__file__).resolve().parents[2]
CLAUDE = Path(
    os.environ.get("MEMKIT_CLAUDE_BIN") or ROOT / ".cache/claude-code/node_modules/.bin/claude"
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not CLAUDE.exists() and not os.environ.get("CI"),
        reason="Claude Code CLI not installed (bash scripts/test.sh installs it)",
    ),
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = make_memory_repo(tmp_path / "project")
    write_atom(
        repo,
        "shared/ws-heartbeat-interval.md",
        atom_text(
            "ws-heartbeat-interval",
            title="WebSocket heartbeat",
            type_="pitfall",
            body="- Send a WebSocket ping every 30 s; the balancer drops idle sockets at 60 s. "
            "MEMKIT-MARK-HEARTBEAT",
            extra="triggers: [websocket, heartbeat]\n",
        ),
    )
    write_atom(
        repo,
        "shared/socket-deadlines.md",
        atom_text(
            "socket-deadlines",
            title="Socket deadlines",
            body="- Always set a connect deadline on sockets. MEMKIT-MARK-NETPATH",
            extra='paths: ["src/net/**"]\n',
        ),
    )
    write_atom(
        repo,
        "shared/texture-size.md",
        atom_text(
            "texture-size",
            title="Texture atlas size",
            body="- Export texture atlases at 2048 px for mobile. MEMKIT-MARK-TEXTURE",
        ),
    )
    (repo / "src/net").mkdir(parents=True)
    (repo / "src/net/conn.py").write_text("TIMEOUT = 5\n", encoding="utf-8")
    commit_and_index(repo)
    result = memkit("install", "claude", cwd=repo)
    assert result.returncode == 0, result.stderr
    return repo


def run_claude(
    project: Path,
    url: str,
    prompt: str,
    tmp_path: Path,
    *extra: str,
    env: dict[str, str] | None = None,
    wait_for_mcp: bool = True,
) -> dict[str, object]:
    home = tmp_path / "claude-home"
    home.mkdir(exist_ok=True)
    env = {
        **os.environ,
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "dummy",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "HOME": str(home),
        "TMPDIR": str(tmp_path),
        **(env or {}),
    }
    if wait_for_mcp:
        # `claude -p` sends its first request ~2 s after starting its MCP servers, with the
        # tools of those that have answered. memkit's answers in ~0.2 s (a test below runs
        # the CLI as users do), but on a machine loaded many times over, tests about what a
        # tool does wait for it rather than fail for the machine's sake.
        env["MCP_CONNECTION_NONBLOCKING"] = "0"
        env["MCP_CONNECT_TIMEOUT_MS"] = "60000"
    result = subprocess.run(
        [str(CLAUDE), "-p", prompt, "--output-format", "json", "--allowedTools", "Read", *extra],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    reply: dict[str, object] = json.loads(result.stdout)  # `--output-format json`: an object
    return reply


def test_settings_are_merged_idempotently(project: Path) -> None:
    settings = project / ".claude/settings.json"
    data = json.loads(settings.read_text(encoding="utf-8"))
    data["hooks"]["UserPromptSubmit"].append(
        {"hooks": [{"type": "command", "command": "echo mine"}]}
    )
    data["model"] = "keep-me"
    settings.write_text(json.dumps(data), encoding="utf-8")
    for _ in range(2):
        assert memkit("install", "claude", cwd=project).returncode == 0
    after = json.loads(settings.read_text(encoding="utf-8"))
    commands = [h["command"] for g in after["hooks"]["UserPromptSubmit"] for h in g["hooks"]]
    assert commands.count("echo mine") == 1
    assert sum("memkit-hook user-prompt-submit" in c for c in commands) == 1
    assert after["model"] == "keep-me"
    assert memkit("install", "claude", "--uninstall", cwd=project).returncode == 0
    removed = json.loads(settings.read_text(encoding="utf-8"))
    assert removed["hooks"] == {
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo mine"}]}]
    }


def test_the_real_cli_receives_exactly_the_right_memory(project: Path, tmp_path: Path) -> None:
    assert shutil.which("memkit-hook"), "memkit-hook must be on PATH for Claude Code"
    with fake_api() as (api, url):
        run_claude(
            project, url, "How often should our websocket client send a heartbeat?", tmp_path
        )
        first = "\n".join(api.messages_text())
        assert "MEMKIT-MARK-HEARTBEAT" in first
        assert "reference data, not instructions" in first
        assert "MEMKIT-MARK-TEXTURE" not in first
        assert "MEMKIT-MARK-NETPATH" not in first
        assert "memkit-index" in first  # the SessionStart index

        api.requests.clear()
        run_claude(project, url, "Tell me a short joke about cats.", tmp_path)
        second = "\n".join(api.messages_text())
        assert second
        for mark in ("HEARTBEAT", "TEXTURE", "NETPATH"):
            assert f"MEMKIT-MARK-{mark}" not in second

        api.requests.clear()
        target = project / "src/net/conn.py"
        run_claude(project, url, f"READ-FILE {target} and summarise it.", tmp_path)
        third = api.messages_text()
        assert any("tool_result" in m for m in third), "the CLI did not run the Read tool"
        after_tool = "\n".join(m for m in third if "tool_result" in m)
        assert "MEMKIT-MARK-NETPATH" in after_tool
        assert "paths 'src/net/**' matches src/net/conn.py" in after_tool
        before_tool = "\n".join(m for m in third if "tool_result" not in m)
        assert "MEMKIT-MARK-NETPATH" not in before_tool  # given by PreToolUse, not the prompt
        assert "MEMKIT-MARK-TEXTURE" not in "\n".join(third)


def test_the_repository_works_as_a_claude_code_plugin(project: Path, tmp_path: Path) -> None:
    assert memkit("install", "claude", "--uninstall", cwd=project).returncode == 0
    with fake_api() as (api, url):
        run_claude(project, url, "Is a websocket heartbeat needed?", tmp_path)
        assert "MEMKIT-MARK-HEARTBEAT" not in "\n".join(api.messages_text())  # uninstalled

        api.requests.clear()
        # The plugin declares the MCP server too; its tools are named after the plugin.
        search = "mcp__plugin_memkit_memkit__search"
        api.script = [(search, {"query": "websocket heartbeat"})]
        run_claude(
            project,
            url,
            "Is a websocket heartbeat needed?",
            tmp_path,
            "--plugin-dir",
            str(ROOT),
            "--allowedTools",
            search,
        )
        text = "\n".join(api.messages_text())
        assert "MEMKIT-MARK-HEARTBEAT" in text and "memkit-index" in text
        assert "MEMKIT-MARK-TEXTURE" not in text
        assert "- ws-heartbeat-interval · pitfall" in tool_result_text(api, 1)


def test_the_real_cli_through_the_warm_engine(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sock = project / ".memkit/engine.sock"
    engine = subprocess.Popen(
        [sys.executable, "-m", "memkit", "serve", "--idle", "60"],
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(300):
            if sock.exists():
                break
            time.sleep(0.05)
        monkeypatch.setenv("MEMKIT_NO_ENGINE", "0")
        with fake_api() as (api, url):
            run_claude(project, url, "How often should our websocket heartbeat fire?", tmp_path)
            text = "\n".join(api.messages_text())
        # "vector #" only comes from the engine, which has the model loaded.
        assert "MEMKIT-MARK-HEARTBEAT" in text and "vector #" in text
        assert "MEMKIT-MARK-TEXTURE" not in text
    finally:
        engine.terminate()
        engine.wait(timeout=30)
    assert not sock.exists()


def tool_result_text(api: FakeAPI, n: int) -> str:
    """The text of the n-th tool result (1-based) in the requests the fake API received, as
    the model reads it."""
    for body in api.requests:
        results = tool_results(body.get("messages", []))
        if len(results) >= n:
            content = results[n - 1].get("content")
            if isinstance(content, list):
                return "\n".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
            return str(content)
    raise AssertionError(f"no request carried tool result {n}")


SAVED = (
    "Always close the websocket with code 1001 when the app goes to the background; "
    "iOS kills sockets left open after 30 s."
)


def test_the_agent_searches_and_saves_through_the_mcp_server(project: Path, tmp_path: Path) -> None:
    assert json.loads((project / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["memkit"]
    before = set((project / "shared").glob("*.md"))
    with fake_api() as (api, url):
        api.script = [
            ("mcp__memkit__search", {"query": "websocket heartbeat interval"}),
            ("mcp__memkit__save", {"text": SAVED, "type": "pitfall", "triggers": ["websocket"]}),
        ]
        tools = ("mcp__memkit__search", "mcp__memkit__save")
        run_claude(
            project, url, "Tell me a short joke about cats.", tmp_path, "--allowedTools", *tools
        )
        offered = {t["name"] for t in api.requests[0].get("tools", [])}
        assert {"mcp__memkit__search", "mcp__memkit__get", "mcp__memkit__timeline"} <= offered
        found = tool_result_text(api, 1)
        # The search result reached the model in the next request: rows, not bodies.
        assert "\n- ws-heartbeat-interval · pitfall · observed · " in found, found
        assert "MEMKIT-MARK-HEARTBEAT" not in found
        saved = tool_result_text(api, 2)
        assert "saved shared/always-close-the-websocket" in saved, saved
    new = set((project / "shared").glob("*.md")) - before
    assert len(new) == 1
    (path,) = new
    assert SAVED in path.read_text(encoding="utf-8")
    check = memkit("validate", path.relative_to(project).as_posix(), cwd=project)
    assert check.returncode == 0, check.stdout + check.stderr


UPDATED = (
    "Send a WebSocket ping every 20 s; the balancer drops idle sockets at 60 s. "
    "MEMKIT-MARK-HEARTBEAT"
)


def test_a_save_that_changes_a_value_shows_the_neighbour_and_supersedes_it(
    project: Path, tmp_path: Path
) -> None:
    """Issue 38: the agent saves the heartbeat line with 30 s changed to 20 s; memory answers
    with the neighbour's text and the choices, writes nothing; the agent saves again with
    `supersedes`, and that is written."""
    before = set((project / "shared").glob("*.md"))
    again = {"text": UPDATED, "type": "pitfall", "supersedes": ["ws-heartbeat-interval"]}
    with fake_api() as (api, url):
        api.script = [
            ("mcp__memkit__save", {"text": UPDATED, "type": "pitfall"}),
            ("mcp__memkit__save", again),
        ]
        run_claude(
            project, url, "Remember the new ping interval.", tmp_path,
            "--allowedTools", "mcp__memkit__save",
        )  # fmt: skip
        asked = tool_result_text(api, 1)
        assert "nothing was written yet" in asked, asked
        assert "ws-heartbeat-interval" in asked and "20 s" in asked, asked
        assert "--supersedes" not in asked, asked  # the shell's fix, not the agent's
        assert 'supersedes: ["ws-heartbeat-interval"]' in asked, asked
        # The neighbour's own text, inside the fence the hooks use.
        assert "<memkit-memory" in asked and "every 30 s" in asked, asked
        saved = tool_result_text(api, 2)
        assert saved.startswith("saved shared/"), saved
    (path,) = set((project / "shared").glob("*.md")) - before
    assert 'supersedes: ["ws-heartbeat-interval"]' in path.read_text(encoding="utf-8")


def test_the_installed_server_is_approved_for_the_project(project: Path, tmp_path: Path) -> None:
    home = tmp_path / "claude-home"
    home.mkdir(exist_ok=True)
    # An interactive user has accepted the folder's trust dialog once.
    trust = {"projects": {str(project): {"hasTrustDialogAccepted": True}}}
    (home / ".claude.json").write_text(json.dumps(trust), encoding="utf-8")
    env = {**os.environ, "HOME": str(home), "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}

    def status() -> str:
        out = subprocess.run(
            [str(CLAUDE), "mcp", "get", "memkit"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        return out.stdout + out.stderr

    assert "Connected" in status()
    settings = project / ".claude/settings.json"
    data = json.loads(settings.read_text(encoding="utf-8"))
    del data["enabledMcpjsonServers"]
    settings.write_text(json.dumps(data), encoding="utf-8")
    assert "Pending approval" in status()  # what the approval in the settings is for


ARGO = "from now on we deploy with Argo CD, never by hand"
ARGO_ATOM = "deploy-with-argo-cd-never-by-hand"


def test_a_decision_said_in_a_session_becomes_memory_and_can_be_taken_back(
    project: Path, tmp_path: Path
) -> None:
    with fake_api() as (api, url):
        run_claude(project, url, ARGO, tmp_path)
        listed = json.loads(memkit("candidates", "list", "--json", cwd=project).stdout)
        (cand,) = [c for c in listed["candidates"] if "Argo CD" in c["statement"]]
        assert cand["statement"] == "From now on we deploy with Argo CD, never by hand."
        assert cand["type"] == "decision" and cand["sources"][0]["event"] == "prompt"

        accepted = memkit("candidates", "accept", cand["id"], cwd=project)
        assert accepted.returncode == 0, accepted.stdout + accepted.stderr
        rel = f"shared/{ARGO_ATOM}.md"
        git(project, "add", rel)
        commit = git(project, "commit", "-m", "memory: deploy with Argo CD", check=False)
        assert commit.returncode == 0, commit.stdout + commit.stderr  # the real pre-commit

        api.requests.clear()
        run_claude(project, url, "How do we deploy to production?", tmp_path)
        assert f"## {ARGO_ATOM} · decision" in "\n".join(api.messages_text())

        undone = memkit("undo", ARGO_ATOM, "--reason", "we deploy with Flux now", cwd=project)
        assert undone.returncode == 0, undone.stderr
        api.requests.clear()
        run_claude(project, url, "How do we deploy to production?", tmp_path)
        after = "\n".join(api.messages_text())
        # Gone from memory (the last session's summary may still name it as used).
        assert after and f"## {ARGO_ATOM} ·" not in after


def test_a_session_summary_reaches_its_author_s_next_session_only(
    project: Path, tmp_path: Path
) -> None:
    target = project / "src/net/conn.py"
    with fake_api() as (api, url):
        run_claude(project, url, f"READ-FILE {target} and summarise it.", tmp_path)
        (summary,) = (project / ".memkit/episodic").glob("session-*.md")
        text = summary.read_text(encoding="utf-8")
        assert "author: alice@example.com" in text and "`src/net/conn.py`" in text
        # Personal and local: never in the memory repository's `git status`, whatever is added.
        status = git(project, "status", "--porcelain", "--untracked-files=all").stdout
        assert "session-" not in status and "episodic" not in status

        joke = "Tell me a short joke about cats."
        api.requests.clear()
        run_claude(project, url, joke, tmp_path)
        mine = "\n".join(api.messages_text())
        assert f"## {summary.stem} · episode" in mine and "src/net/conn.py" in mine

        bob = {"GIT_AUTHOR_EMAIL": "bob@example.com", "GIT_COMMITTER_EMAIL": "bob@example.com"}
        api.requests.clear()
        run_claude(project, url, joke, tmp_path, env=bob)
        theirs = "\n".join(api.messages_text())
        assert theirs and summary.stem not in theirs and "src/net/conn.py" not in theirs

        # Past its expiry date, never again.
        summary.write_text(re.sub(r"expires: \S+", "expires: 2020-01-01", text), "utf-8")
        for path in (project / ".memkit/episodic").glob("session-*.md"):
            if path != summary:
                path.unlink()  # the summaries of the sessions just run
        api.requests.clear()
        run_claude(project, url, joke, tmp_path)
        assert summary.stem not in "\n".join(api.messages_text())
    git(project, "add", "-A")
    assert "session-" not in git(project, "diff", "--cached", "--name-only").stdout


def test_a_decision_the_agent_states_becomes_a_candidate(project: Path, tmp_path: Path) -> None:
    """Issue 29: what Claude decides in its answer, and the user does not dispute, is kept as
    a candidate; the session's summary says what was asked and decided."""
    with fake_api() as (api, url):
        api.answer = (
            "Let me look at the migrations folder. Going forward we'll write every schema "
            "change as an alembic migration, never by hand in psql."
        )
        run_claude(project, url, "How should we change the database schema?", tmp_path)
    listed = json.loads(memkit("candidates", "list", "--json", cwd=project).stdout)
    (cand,) = [c for c in listed["candidates"] if "alembic" in c["statement"]]
    assert cand["statement"].startswith("Going forward we'll write every schema change")
    assert cand["type"] == "decision" and cand["sources"][0]["event"] == "answer"
    assert "Let me" not in cand["statement"]
    (summary,) = (project / ".memkit/episodic").glob("session-*.md")
    text = summary.read_text(encoding="utf-8")
    assert '"How should we change the database schema?"' in text.split("## Asked")[1]
    assert cand["id"] in text.split("## Decided")[1]


def test_what_the_agent_is_given_and_reads_is_counted_for_the_lifecycle(
    project: Path, tmp_path: Path
) -> None:
    """Issue 16: the prompt's atom is given, and the answer draws on it without contradicting
    it (a confirmation, issue 29: being given alone is not), and the atom the agent reads with
    `memkit show` through its Bash tool is counted as read, both under the session id Claude
    Code gives its hooks and its tools."""
    from memkit.recall.usage import usage_log

    with fake_api() as (api, url):
        api.script = [
            ("Bash", {"command": "memkit show socket-deadlines", "description": "read an atom"})
        ]
        api.answer = "Ping every 30 s: the balancer drops idle sockets at 60 s."
        result = run_claude(
            project,
            url,
            "How often should the websocket heartbeat ping?",
            tmp_path,
            "--allowedTools",
            "Bash",
        )
        assert "Always set a connect deadline" in tool_result_text(api, 1)
    session = str(result["session_id"])
    with usage_log(project) as log:
        tallies = log.tallies()
        used = set(log.session_atoms(session))
    assert {"ws-heartbeat-interval", "socket-deadlines"} <= used
    heartbeat, deadlines = tallies["ws-heartbeat-interval"], tallies["socket-deadlines"]
    assert (heartbeat.injected, heartbeat.answered, heartbeat.confirmed) == (1, 1, 1)
    assert heartbeat.contradicted == 0
    assert (deadlines.read, deadlines.confirmed) == (1, 1)
    assert "texture-size" not in used


def test_an_answer_that_contradicts_the_given_atom_is_counted_against_it(
    project: Path, tmp_path: Path
) -> None:
    """Issue 16/27: the atom given for the prompt says 30 s; the answer says 90 s. The turn
    counts a contradiction (judged by the one verdict the gate and the audit use), not a
    confirmation."""
    from memkit.recall.usage import usage_log

    with fake_api() as (api, url):
        api.answer = "Send a WebSocket ping every 90 s; the balancer keeps idle sockets open."
        result = run_claude(
            project, url, "How often should the websocket heartbeat ping?", tmp_path
        )
    with usage_log(project) as log:
        heartbeat = log.tallies()["ws-heartbeat-interval"]
        assert "ws-heartbeat-interval" in set(log.session_atoms(str(result["session_id"])))
    assert (heartbeat.injected, heartbeat.contradicted, heartbeat.confirmed) == (1, 1, 0)


MEMKIT_TOOLS = {"mcp__memkit__search", "mcp__memkit__get", "mcp__memkit__timeline"}


def offered(api: FakeAPI, n: int = 0) -> set[str]:
    """The tools the n-th request offered the model."""
    return {t["name"] for t in api.requests[n].get("tools", [])}


def test_a_teammates_clone_on_another_path_recalls_with_no_edit(tmp_path: Path) -> None:
    """Issue 29: the committed settings name no path of Alice's machine. Bob clones the
    project and the memory side by side somewhere else, and memory works without an edit;
    his own `memkit install claude` changes nothing the team would commit."""
    team, app = wired_project(tmp_path / "alice")
    for committed in (".claude/settings.json", ".mcp.json"):
        assert str(tmp_path) not in (app / committed).read_text(encoding="utf-8")
    bob = tmp_path / "elsewhere" / "bob"
    bob.mkdir(parents=True)
    git(bob, "clone", "--quiet", str(app), "app")
    join_clone(team, bob / "team-memory", "bob@example.com")
    assert memkit("index", cwd=bob / "team-memory").returncode == 0
    again = memkit("install", "claude", "--repo", "../team-memory", cwd=bob / "app")
    assert again.returncode == 0, again.stderr
    assert git(bob / "app", "status", "--porcelain").stdout == ""

    search = "mcp__memkit__search"
    with fake_api() as (api, url):
        api.script = [(search, {"query": "websocket heartbeat"})]
        run_claude(
            bob / "app",
            url,
            "How often should our websocket client send a heartbeat?",
            tmp_path,
            "--allowedTools",
            search,
            wait_for_mcp=False,  # as users run it: the tools must be there on the first request
        )
        # The prompt hook gave the atom from Bob's clone of the memory.
        assert "Send a WebSocket ping every 30 s." in api.messages_text()[0]
        # memkit's tools were there on the first request, and the search found the atom.
        assert offered(api) >= MEMKIT_TOOLS, offered(api)
        assert "\n- ws-heartbeat-interval · pitfall · observed · " in tool_result_text(api, 1)


def test_the_read_only_tools_are_granted_once_the_folder_is_trusted(
    project: Path, tmp_path: Path
) -> None:
    """`memkit install claude` grants search, get and timeline in the project's permissions;
    Claude Code honours them once the person trusted the folder, and never for save."""
    calls: list[tuple[str, dict[str, Any]]] = [
        ("mcp__memkit__get", {"ids": ["ws-heartbeat-interval"]}),
        ("mcp__memkit__save", {"text": SAVED, "type": "pitfall"}),
    ]
    with fake_api() as (api, url):
        api.script = list(calls)
        untrusted = run_claude(project, url, "Tell me a short joke about cats.", tmp_path)
        # Not trusted yet (a CI runner): the project's grants do not count; --allowedTools does.
        assert "haven't granted" in tool_result_text(api, 1)
        assert len(untrusted["permission_denials"]) == 2  # type: ignore[arg-type]

        home = tmp_path / "claude-home"
        state = json.loads((home / ".claude.json").read_text(encoding="utf-8"))
        state.setdefault("projects", {}).setdefault(str(project), {})
        state["projects"][str(project)]["hasTrustDialogAccepted"] = True  # the dialog, once
        (home / ".claude.json").write_text(json.dumps(state), encoding="utf-8")
        api.requests.clear()
        api.script = list(calls)
        trusted = run_claude(project, url, "Tell me a short joke about cats.", tmp_path)
        got = tool_result_text(api, 1)
        assert got.startswith("<memkit-memory>") and "MEMKIT-MARK-HEARTBEAT" in got
        assert "haven't granted" in tool_result_text(api, 2)  # save: the user's to allow
        denied = [d["tool_name"] for d in trusted["permission_denials"]]  # type: ignore[attr-defined]
        assert denied == ["mcp__memkit__save"]
    assert not list((project / "shared").glob("always-close*"))


def test_ci_passes_the_server_and_the_tools_on_the_command_line(
    project: Path, tmp_path: Path
) -> None:
    """What docs/mcp.md tells `claude -p` users in CI (an untrusted folder, no .mcp.json in
    the checkout): `--mcp-config FILE --strict-mcp-config --allowedTools …`."""
    config = tmp_path / "ci-mcp.json"
    (project / ".mcp.json").rename(config)
    search = "mcp__memkit__search"
    with fake_api() as (api, url):
        api.script = [(search, {"query": "websocket heartbeat"})]
        run_claude(
            project,
            url,
            "Tell me a short joke about cats.",
            tmp_path,
            "--mcp-config",
            str(config),
            "--strict-mcp-config",
            "--allowedTools",
            search,
        )
        assert offered(api) >= MEMKIT_TOOLS
        assert "\n- ws-heartbeat-interval · pitfall" in tool_result_text(api, 1)


def test_a_repository_elsewhere_is_named_in_the_users_own_settings(tmp_path: Path) -> None:
    """A personal memory (not in or beside the project) is named in the user's
    .claude/settings.local.json, never in what the team commits; Claude Code passes it to the
    hooks and to the MCP server."""
    personal = make_memory_repo(tmp_path / "home" / "notes" / "my-memory")
    write_atom(
        personal,
        "shared/texture-size.md",
        atom_text(
            "texture-size",
            title="Texture atlas size",
            body="- Export texture atlases at 2048 px for mobile. MEMKIT-MARK-TEXTURE",
            extra="triggers: [texture, atlas]\n",
        ),
    )
    commit_and_index(personal)
    app = tmp_path / "work" / "code" / "app"
    app.mkdir(parents=True)
    git(app, "init", "-q")
    assert memkit("install", "claude", "--repo", str(personal), cwd=app).returncode == 0
    for committed in (".claude/settings.json", ".mcp.json"):
        assert str(tmp_path) not in (app / committed).read_text(encoding="utf-8")
    assert str(personal) in (app / ".claude/settings.local.json").read_text(encoding="utf-8")
    assert ".claude/settings.local.json" not in git(app, "status", "--porcelain", "-uall").stdout

    search = "mcp__memkit__search"
    with fake_api() as (api, url):
        api.script = [(search, {"query": "texture atlas size"})]
        prompt = "What size should the texture atlas be?"
        run_claude(app, url, prompt, tmp_path, "--allowedTools", search)
        assert "MEMKIT-MARK-TEXTURE" in api.messages_text()[0]  # the prompt hook
        assert "\n- texture-size · fact" in tool_result_text(api, 1)  # the MCP server
