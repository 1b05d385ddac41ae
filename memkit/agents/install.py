"""`memkit install codex|gemini|cursor|opencode|copilot`: memkit's hooks and MCP server in
each agent's own project files, merged (everything else kept), idempotent, and naming no path
of one machine: a repository in or beside the project is written relative to it (the hook
client and `memkit mcp` take it from the agent's project folder, `memkit.agents.dialects`);
any other one is left to `MEMKIT_REPOS` in the user's own environment.

What each file is, as the agents' documentation and their real CLIs (docs/agents.md) say:

| agent | hooks | MCP server |
|---|---|---|
| Codex CLI | `.codex/hooks.json` (groups, `timeout` in s) | `.codex/config.toml` |
| Gemini CLI | `hooks` in `.gemini/settings.json` (groups, `timeout` in ms) | `mcpServers` there |
| Cursor | `.cursor/hooks.json` (`version: 1`, flat entries) | `.cursor/mcp.json` |
| OpenCode | the plugin `.opencode/plugin/memkit.js` | `mcp` in `opencode.json` |
| Copilot CLI | `.github/hooks/memkit.json` (`version: 1`, `bash`, `timeoutSec`) | `.mcp.json` |
"""

from __future__ import annotations

import json
import shlex
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from memkit.agents.files import (
    MCP_SERVER,
    hooks_table,
    merge_mcp,
    place_hooks,
    read_object,
    write_object,
)
from memkit.errors import MemkitError
from memkit.files import write_atomic

SHELL_FAILS = ("gemini", "cursor", "copilot")  # agents that may stop on a failed hook
TIMEOUT = 15  # seconds: memkit's own deadline is 5 s (1.2 s for a session's end)
# agent -> (its event, memkit's event) for every hook memkit installs.
EVENTS: dict[str, tuple[tuple[str, str], ...]] = {
    "codex": (
        ("SessionStart", "session-start"),
        ("UserPromptSubmit", "user-prompt-submit"),
        ("PreCompact", "pre-compact"),
        ("Stop", "stop"),
        ("SessionEnd", "session-end"),
    ),
    "gemini": (
        ("SessionStart", "session-start"),
        ("BeforeAgent", "user-prompt-submit"),
        ("PreCompress", "pre-compact"),
        ("AfterAgent", "stop"),
        ("SessionEnd", "session-end"),
    ),
    "cursor": (
        ("sessionStart", "session-start"),
        ("beforeSubmitPrompt", "user-prompt-submit"),
        ("stop", "stop"),
        ("sessionEnd", "session-end"),
    ),
    "copilot": (
        ("sessionStart", "session-start"),
        ("userPromptSubmitted", "user-prompt-submit"),
        ("agentStop", "stop"),
        ("sessionEnd", "session-end"),
    ),
}
CODEX_HOOKS, CODEX_CONFIG = ".codex/hooks.json", ".codex/config.toml"
GEMINI_SETTINGS = ".gemini/settings.json"
CURSOR_HOOKS, CURSOR_MCP = ".cursor/hooks.json", ".cursor/mcp.json"
OPENCODE_CONFIG, OPENCODE_PLUGIN = "opencode.json", ".opencode/plugin/memkit.js"
COPILOT_HOOKS, COPILOT_MCP = ".github/hooks/memkit.json", ".mcp.json"
_BEGIN = "# memkit: its MCP server (`memkit install codex` writes this table; keep it whole)"


@dataclass(frozen=True)
class Wiring:
    """What one install writes: the agent, its project, the repositories (relative forms)."""

    agent: str
    project: Path
    repos: tuple[str, ...]
    uninstall: bool = False

    def hook(self, event: str) -> str:
        flags = "".join(f" --repo {shlex.quote(r)}" for r in self.repos)
        command = f"memkit-hook {event} --agent {self.agent}{flags}"
        # Gemini CLI 0.61.0 blocks the prompt when a hook exits non-zero, as a shell does
        # when `memkit-hook` is not on its PATH (exit 127): memory is never worth that.
        return command + " || true" if self.agent in SHELL_FAILS else command

    def mcp_args(self, *, agent: bool = True) -> list[str]:
        head = ["mcp", "--agent", self.agent] if agent else ["mcp"]
        return [*head, *(a for r in self.repos for a in ("--repo", r))]


def _grouped_hooks(wiring: Wiring, settings: dict[str, Any], name: str, timeout: int) -> None:
    """Codex CLI's and Gemini CLI's shape (Claude Code's): event -> groups of hooks."""
    hooks = hooks_table(settings, name)
    ours = {
        event: {"hooks": [{"type": "command", "command": wiring.hook(mine), "timeout": timeout}]}
        for event, mine in EVENTS[wiring.agent]
    }
    place_hooks(hooks, {} if wiring.uninstall else ours)
    if not hooks:
        del settings["hooks"]


def _codex(wiring: Wiring) -> list[Path]:
    path = wiring.project / CODEX_HOOKS
    settings = read_object(path)
    config_path = wiring.project / CODEX_CONFIG
    config = _codex_config(config_path, None if wiring.uninstall else wiring.mcp_args())
    _grouped_hooks(wiring, settings, CODEX_HOOKS, TIMEOUT)
    write_object(path, settings, keep_empty=False)
    if config:
        config_path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(config_path, config)
    elif config_path.is_file():
        config_path.unlink()  # nothing left but memkit's, which is gone
    return [path, config_path]


def _codex_config(path: Path, args: list[str] | None) -> str:
    """`.codex/config.toml` with memkit's `[mcp_servers.memkit]` table set (args) or removed
    (None), as a block of its own at the end; every other line kept as it is."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MemkitError(f"{path} is not valid TOML ({exc}); fix it first") from exc
    kept: list[str] = []
    at: int | None = None  # where memkit's table was: written back there
    skipping = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped in (_BEGIN, f"[mcp_servers.{MCP_SERVER}]"):
            at = len(kept) if at is None else at
            skipping = True
            continue
        if skipping and stripped.startswith("["):
            skipping = False
        if not skipping:
            kept.append(line)
    if args is not None:
        block = [_BEGIN, f"[mcp_servers.{MCP_SERVER}]", 'command = "memkit"']
        block.append(f"args = {json.dumps(args)}")
        if at is None:
            while kept and not kept[-1].strip():
                kept.pop()
            at = len(kept) + 1 if kept else 0
            kept += [""] if kept else []
        kept[at:at] = [*block, ""] if at < len(kept) else block
    while kept and not kept[-1].strip():
        kept.pop()
    out = "\n".join(kept) + "\n" if kept else ""
    tomllib.loads(out)  # what is written must be read back as Codex reads it
    return out


def _gemini(wiring: Wiring) -> list[Path]:
    path = wiring.project / GEMINI_SETTINGS
    settings = read_object(path)
    # Gemini CLI's timeouts are in milliseconds.
    _grouped_hooks(wiring, settings, GEMINI_SETTINGS, TIMEOUT * 1000)
    merge_mcp(settings, None if wiring.uninstall else wiring.mcp_args(), GEMINI_SETTINGS)
    write_object(path, settings, keep_empty=False)
    return [path]


def _flat_hooks(wiring: Wiring, path: Path, key: str, extra: dict[str, Any]) -> None:
    """Cursor's and Copilot CLI's shape: `version: 1`, event -> a list of hooks."""
    settings = read_object(path)
    hooks = hooks_table(settings, path.name)
    ours = {event: {**extra, key: wiring.hook(mine)} for event, mine in EVENTS[wiring.agent]}
    place_hooks(hooks, {} if wiring.uninstall else ours, key=key, grouped=False)
    if hooks:
        settings.setdefault("version", 1)
    else:
        settings.pop("hooks", None)
        if set(settings) <= {"version"}:
            settings = {}
    write_object(path, settings, keep_empty=False)


def _cursor(wiring: Wiring) -> list[Path]:
    mcp_path = wiring.project / CURSOR_MCP
    mcp = read_object(mcp_path)
    _flat_hooks(wiring, wiring.project / CURSOR_HOOKS, "command", {})
    merge_mcp(mcp, None if wiring.uninstall else wiring.mcp_args(), CURSOR_MCP)
    write_object(mcp_path, mcp, keep_empty=False)
    return [wiring.project / CURSOR_HOOKS, mcp_path]


def _copilot(wiring: Wiring) -> list[Path]:
    mcp_path = wiring.project / COPILOT_MCP
    mcp = read_object(mcp_path)
    # `cwd` is taken from the repository's root: the relative `--repo` is the project's.
    extra = {"type": "command", "cwd": ".", "timeoutSec": TIMEOUT}
    _flat_hooks(wiring, wiring.project / COPILOT_HOOKS, "bash", extra)
    # `.mcp.json` is Claude Code's file too: its entry (args from that file's folder) serves both.
    servers = mcp.get("mcpServers")
    ours = servers.get(MCP_SERVER) if isinstance(servers, dict) else None
    if wiring.uninstall or not isinstance(ours, dict):
        merge_mcp(mcp, None if wiring.uninstall else wiring.mcp_args(agent=False), COPILOT_MCP)
    write_object(mcp_path, mcp, keep_empty=False)
    return [wiring.project / COPILOT_HOOKS, mcp_path]


def _opencode(wiring: Wiring) -> list[Path]:
    path = wiring.project / OPENCODE_CONFIG
    config = read_object(path)
    servers = config.setdefault("mcp", {})
    if not isinstance(servers, dict):
        raise MemkitError(f"`mcp` in {OPENCODE_CONFIG} is not an object")
    servers.pop(MCP_SERVER, None)
    if not wiring.uninstall:
        command = ["memkit", *wiring.mcp_args()]
        servers[MCP_SERVER] = {"type": "local", "command": command, "enabled": True}
    if not servers:
        del config["mcp"]
    if config and "$schema" not in config:
        config = {"$schema": "https://opencode.ai/config.json", **config}
    if set(config) <= {"$schema"}:
        config = {}
    write_object(path, config, keep_empty=False)
    plugin = wiring.project / OPENCODE_PLUGIN
    if wiring.uninstall:
        plugin.unlink(missing_ok=True)
    else:
        plugin.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(plugin, opencode_plugin(wiring))
    return [path, plugin]


def opencode_plugin(wiring: Wiring) -> str:
    """The plugin, with the hook client's arguments written in (relative repositories)."""
    template = resources.files("memkit.agents").joinpath("opencode_plugin.js")
    args = ["--agent", "opencode", *(a for r in wiring.repos for a in ("--repo", r))]
    return template.read_text(encoding="utf-8").replace("__MEMKIT_ARGS__", json.dumps(args))


WRITERS: dict[str, Callable[[Wiring], list[Path]]] = {
    "codex": _codex,
    "gemini": _gemini,
    "cursor": _cursor,
    "opencode": _opencode,
    "copilot": _copilot,
}


def install(agent: str, project: Path, repos: list[str], *, uninstall: bool = False) -> list[Path]:
    """Write (or take out) memkit's wiring for `agent` in `project`; the files it touched.
    `repos`: the relative forms of the repositories to name. Every file is read before any is
    written, so a broken one stops the install whole."""
    return WRITERS[agent](Wiring(agent, project, tuple(repos), uninstall))
