"""Merging memkit's hook entries, the approval of its MCP server and the grant of its
read-only tools into a project's `.claude/settings.json`, and the server into the project's
`.mcp.json`, idempotently; repositories that are not the project's neighbours go into the
user's `.claude/settings.local.json` (`memkit.claude.wiring` says why)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memkit.agents.files import is_memkit_server, relative_form, remove_hooks
from memkit.agents.files import read_object as _read_json
from memkit.agents.files import write_object as _write
from memkit.claude.wiring import (
    LOCAL_SETTINGS,
    MCP_CONFIG,
    MCP_SERVER,
    SETTINGS,
    hook_argument,
    set_local_repos,
)
from memkit.errors import MemkitError
from memkit.files import write_atomic
from memkit.git import ignored, output
from memkit.mcp.tools import GRANTED

EVENTS = (
    ("SessionStart", "session-start", None),
    ("UserPromptSubmit", "user-prompt-submit", None),
    ("PreToolUse", "pre-tool-use", "Read|Edit|Write|MultiEdit"),
    ("PostToolUse", "post-tool-use", "Edit|Write|MultiEdit"),
    ("PreCompact", "pre-compact", None),
    ("Stop", "stop", None),
    ("SessionEnd", "session-end", None),
)
TIMEOUT = 15
GRANTS = [f"mcp__{MCP_SERVER}__{tool}" for tool in GRANTED]


def merge(settings: dict[str, Any], command_for: dict[str, str]) -> dict[str, Any]:
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise MemkitError("`hooks` in .claude/settings.json is not an object")
    remove(settings)
    hooks = settings.setdefault("hooks", {})
    for event, name, matcher in EVENTS:
        entry: dict[str, Any] = {
            "hooks": [{"type": "command", "command": command_for[name], "timeout": TIMEOUT}]
        }
        if matcher:
            entry["matcher"] = matcher
        hooks.setdefault(event, []).append(entry)
    return settings


def remove(settings: dict[str, Any]) -> dict[str, Any]:
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return settings
    remove_hooks(hooks)
    if not hooks:
        del settings["hooks"]
    return settings


def merge_mcp(config: dict[str, Any], args: list[str] | None) -> dict[str, Any]:
    """Set (args) or remove (None) memkit's server in a `.mcp.json`, touching nothing else."""
    servers = config.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise MemkitError("`mcpServers` in .mcp.json is not an object")
    if args is not None:
        servers[MCP_SERVER] = {"type": "stdio", "command": "memkit", "args": args}
    elif is_memkit_server(servers.get(MCP_SERVER)):
        del servers[MCP_SERVER]
    return config


def approve_mcp(settings: dict[str, Any], *, approve: bool) -> None:
    """Claude Code asks before it starts a server from a project's `.mcp.json`; naming it in
    `enabledMcpjsonServers` is the project's own approval."""
    enabled = settings.get("enabledMcpjsonServers")
    names = [n for n in enabled if n != MCP_SERVER] if isinstance(enabled, list) else []
    if approve:
        names.append(MCP_SERVER)
    if names:
        settings["enabledMcpjsonServers"] = names
    elif isinstance(enabled, list):
        del settings["enabledMcpjsonServers"]


def grant_tools(settings: dict[str, Any], *, grant: bool) -> None:
    """The read-only tools in the project's `permissions.allow`: Claude Code then calls them
    without asking (once the folder is trusted); `save` and `accept` stay the user's to allow."""
    permissions = settings.get("permissions")
    if not isinstance(permissions, dict):
        if not grant:
            return
        permissions = settings["permissions"] = {}
    allow = permissions.get("allow")
    rules = [r for r in allow if r not in GRANTS] if isinstance(allow, list) else []
    if grant:
        rules += GRANTS
    if rules:
        permissions["allow"] = rules
    else:
        permissions.pop("allow", None)
        if not permissions:
            del settings["permissions"]


def _keep_local(project: Path) -> None:
    """The local settings name paths of this machine: kept out of commits in this clone
    (`.git/info/exclude`, itself never committed) unless git already ignores them."""
    top = output(project, "rev-parse", "--show-toplevel")
    exclude = output(project, "rev-parse", "--git-path", "info/exclude")
    if top is None or exclude is None or ignored(project, LOCAL_SETTINGS):
        return
    rel = (project / LOCAL_SETTINGS).resolve().relative_to(Path(top).resolve()).as_posix()
    path = Path(exclude) if Path(exclude).is_absolute() else project / exclude
    try:
        before = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        before = ""
    lead = "" if not before or before.endswith("\n") else "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, f"{before}{lead}/{rel}\n")


def install(project: Path, repos: list[Path], *, uninstall: bool = False) -> Path:
    """Wire `repos` into the project: hooks, MCP server and grants in the files the team
    commits, named relative to the project; repositories elsewhere in the user's local
    settings (`memkit.claude.wiring`)."""
    path = project / SETTINGS
    mcp_path = project / MCP_CONFIG
    local_path = project / LOCAL_SETTINGS
    # Every file is read before any is written: a broken one stops the install whole.
    settings = _read_json(path)
    mcp_config = _read_json(mcp_path)
    local = _read_json(local_path)
    had_local = local_path.is_file()
    shared = [(r, rel) for r in repos if (rel := relative_form(project, r)) is not None]
    personal = [r for r in repos if relative_form(project, r) is None]
    # Before the hooks, which are re-added at the end: a second install writes the same bytes.
    approve_mcp(settings, approve=not uninstall)
    grant_tools(settings, grant=not uninstall)
    if uninstall:
        remove(settings)
        merge_mcp(mcp_config, None)
        set_local_repos(local, [])
    else:
        args = " ".join(f"--repo {hook_argument(rel)}" for _, rel in shared)
        merge(settings, {name: f"memkit-hook {name} {args}".strip() for _, name, _ in EVENTS})
        merge_mcp(mcp_config, ["mcp", *(a for _, rel in shared for a in ("--repo", rel))])
        set_local_repos(local, personal)
    write_atomic(path, json.dumps(settings, indent=2, ensure_ascii=False) + "\n")
    if not mcp_config.get("mcpServers") and len(mcp_config) <= 1:
        mcp_config = {}
    _write(mcp_path, mcp_config, keep_empty=False)
    if local or had_local:
        _write(local_path, local, keep_empty=False)
    if personal:
        _keep_local(project)
    return path
