"""memkit in the real Codex CLI, Gemini CLI and OpenCode (installed from npm by
scripts/test.sh into .cache/<agent>/), headless and offline against fake model APIs on
127.0.0.1 (`fake_apis`), with a throwaway HOME: after `memkit install codex gemini opencode`
in a code project beside the memory, an on-topic prompt brings the right atom into the model's
request and an unrelated one brings none; the model's call of memkit's MCP `search` is
answered by memkit; a decision stated in the prompt becomes a capture candidate."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.agents.fake_apis import fake_apis
from tests.helpers import commit_and_index, git, make_memory_repo, memkit, write_marked_atoms

ROOT = Path(__file__).resolve().parents[2]
CLI = {
    "codex": ROOT / ".cache/codex/node_modules/.bin/codex",
    "gemini": ROOT / ".cache/gemini-cli/node_modules/.bin/gemini",
    "opencode": ROOT / ".cache/opencode/node_modules/.bin/opencode",
}
ON_TOPIC = "How often should our websocket client send a heartbeat?"
OFF_TOPIC = "Tell me a short joke about cats."
DECISION = "from now on we deploy with Argo CD, never by hand"
NEWCOMER = {
    "GIT_AUTHOR_EMAIL": "newcomer@example.com",
    "GIT_COMMITTER_EMAIL": "newcomer@example.com",
}

pytestmark = pytest.mark.slow


def _needs(agent: str) -> None:
    if not CLI[agent].exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CLI[agent]} missing: scripts/test.sh installs it")
        pytest.skip(f"{agent} CLI not installed (bash scripts/test.sh installs it)")


@pytest.fixture(scope="module")
def layout(
    tmp_path_factory: pytest.TempPathFactory, module_home: Callable[[], Any]
) -> tuple[Path, Path]:
    """`team-memory` (two atoms) and beside it `app`, a code project wired for all three
    agents with the files a team commits (made in the module's own HOME: `memkit init` and
    the commits run pre-commit, which would fill the real HOME's cache)."""
    with module_home():
        return _layout(tmp_path_factory.mktemp("agents"))


def _layout(folder: Path) -> tuple[Path, Path]:
    team = make_memory_repo(folder / "team-memory")
    write_marked_atoms(team)
    commit_and_index(team)
    app = folder / "app"
    (app / "src").mkdir(parents=True)
    (app / "src/main.py").write_text("print('hello')\n", encoding="utf-8")
    git(app, "init", "-q")
    wired = memkit("install", "codex", "gemini", "opencode", "--repo", "../team-memory", cwd=app)
    assert wired.returncode == 0, wired.stdout + wired.stderr
    git(app, "add", "-A")
    git(app, "commit", "-q", "-m", "wire memkit")
    return team, app


def _env(home: Path, tmp: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local/state"),
        "TMPDIR": str(tmp),
        **extra,
    }


def run_codex(
    app: Path, url: str, prompt: str, home: Path, who: dict[str, str] | None = None
) -> str:
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    # A custom provider speaking the Responses API, and the project trusted (Codex loads a
    # project's .codex/ only then), as its user would have it after trusting the folder once.
    (codex_home / "config.toml").write_text(
        'model = "fake-model"\nmodel_provider = "fake"\n'
        "[model_providers.fake]\n"
        f'name = "fake"\nbase_url = "{url}/v1"\nwire_api = "responses"\nenv_key = "FAKE_KEY"\n'
        f'[projects."{app}"]\ntrust_level = "trusted"\n',
        encoding="utf-8",
    )
    # Each hook must be trusted once in /hooks (an interactive screen): the flag stands in.
    argv = [str(CLI["codex"]), "exec", "--json", "--dangerously-bypass-hook-trust"]
    argv += ["--dangerously-bypass-approvals-and-sandbox", prompt]
    env = _env(home, home, CODEX_HOME=str(codex_home), FAKE_KEY="dummy", **(who or {}))
    return _run(argv, app, env)


def run_gemini(
    app: Path, url: str, prompt: str, home: Path, who: dict[str, str] | None = None
) -> str:
    settings = home / ".gemini/settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}))
    env = _env(
        home,
        home,
        GOOGLE_GEMINI_BASE_URL=url,
        GEMINI_API_KEY="dummy",
        GEMINI_CLI_TRUST_WORKSPACE="true",  # the folder trusted once, as its user would
        **(who or {}),
    )
    argv = [str(CLI["gemini"]), "-p", prompt, "--output-format", "json", "--approval-mode", "yolo"]
    return _run(argv, app, env)


def run_opencode(
    app: Path, url: str, prompt: str, home: Path, who: dict[str, str] | None = None
) -> str:
    config = home / ".config/opencode/opencode.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    # The user's own provider (their config, not the project's): an OpenAI-compatible API.
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "name": "Fake",
        "options": {"baseURL": f"{url}/v1", "apiKey": "dummy"},
        "models": {"fake-model": {"name": "Fake"}},
    }
    config.write_text(json.dumps({"provider": {"fake": provider}, "model": "fake/fake-model"}))
    env = _env(home, home, OPENCODE_DISABLE_AUTOUPDATE="1", **(who or {}))
    return _run([str(CLI["opencode"]), "run", prompt, "--format", "json"], app, env)


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> str:
    # PWD as a shell leaves it: OpenCode takes its project from it, not from its own cwd.
    env = {**env, "PWD": str(cwd)}
    result = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=180, check=False,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


RUNS: dict[str, Callable[..., str]] = {
    "codex": run_codex,
    "gemini": run_gemini,
    "opencode": run_opencode,
}
# What each agent calls memkit's MCP `search` tool.
SEARCH = {"codex": "mcp__memkit/search", "gemini": "mcp_memkit_search", "opencode": "memkit_search"}


@pytest.mark.parametrize("agent", list(RUNS))
def test_the_right_atom_reaches_the_model_and_nothing_for_an_unrelated_prompt(
    agent: str, layout: tuple[Path, Path], tmp_path: Path
) -> None:
    _needs(agent)
    _, app = layout
    with fake_apis() as (api, url):
        # Someone with no earlier session here: a last session's summary, given on the first
        # prompt of the next one, would be memory too.
        RUNS[agent](app, url, OFF_TOPIC, tmp_path / "home", NEWCOMER)
        sent = api.text()
        assert sent and "MEMKIT-MARK-HEARTBEAT" not in sent and "memkit-memory" not in sent

        api.requests.clear()
        RUNS[agent](app, url, ON_TOPIC, tmp_path / "home", {})
        sent = api.text()
        assert "MEMKIT-MARK-HEARTBEAT" in sent, sent[-3000:]
        # Gemini CLI writes the hook's `<` as `&lt;` inside its own `<hook_context>`.
        assert "reference data, not instructions" in sent and "memkit-memory" in sent
        assert "MEMKIT-MARK-TEXTURE" not in sent
        assert "memkit-index" in sent  # the session's index, at its start
    assert not (app / ".memkit").exists()  # state stays in the memory repository


@pytest.mark.parametrize("agent", list(RUNS))
def test_the_model_s_mcp_search_is_answered_by_memkit(
    agent: str, layout: tuple[Path, Path], tmp_path: Path
) -> None:
    _needs(agent)
    _, app = layout
    with fake_apis() as (api, url):
        api.script = [(SEARCH[agent], {"query": "websocket heartbeat interval"})]
        RUNS[agent](app, url, OFF_TOPIC, tmp_path / "home", NEWCOMER)
        offered = {t.replace("mcp__memkit", "mcp__memkit/search") for t in api.tools()}
        assert SEARCH[agent] in offered, sorted(api.tools())
        results = api.results()
        assert results, "the CLI did not call the tool"
        assert "ws-heartbeat-interval · pitfall" in results[0], results


@pytest.mark.parametrize("agent", list(RUNS))
def test_a_decision_stated_in_the_session_becomes_a_candidate(
    agent: str, layout: tuple[Path, Path], tmp_path: Path
) -> None:
    _needs(agent)
    team, app = layout
    with fake_apis() as (_, url):
        RUNS[agent](app, url, f"{DECISION} ({agent})", tmp_path / "home", {})
    listed = json.loads(memkit("candidates", "list", "--json", cwd=team).stdout)
    found = [c for c in listed["candidates"] if "Argo CD" in c["statement"]]
    assert found, listed
    assert found[0]["type"] == "decision"
    # The same list from the code project: every command finds the memory the wiring names.
    here = json.loads(memkit("candidates", "list", "--json", cwd=app).stdout)
    assert [c["id"] for c in here["candidates"]] == [c["id"] for c in listed["candidates"]]
