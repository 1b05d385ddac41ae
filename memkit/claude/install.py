"""Merging memkit's hook entries into a project's `.claude/settings.json`, and its MCP server
into the project's `.mcp.json`, idempotently."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from memkit.errors import MemkitError
from memkit.files import write_atomic

MARK = "memkit-hook "
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
MCP_CONFIG = ".mcp.json"
MCP_SERVER = "memkit"


def repo_argument(project: Path, repo: Path) -> str:
    """A repo inside the project is named relative to $CLAUDE_PROJECT_DIR, so the settings
    work in every clone; a repo elsewhere is named by its absolute path."""
    try:
        rel = repo.resolve().relative_to(project.resolve())
    except ValueError:
        return shlex.quote(str(repo.resolve()))
    return '"$CLAUDE_PROJECT_DIR"' + ("/" + shlex.quote(rel.as_posix()) if rel.parts else "")


def _is_memkit(hook: Any) -> bool:
    return isinstance(hook, dict) and MARK in str(hook.get("command", ""))


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
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                group["hooks"] = [h for h in group["hooks"] if not _is_memkit(h)]
                if not group["hooks"]:
                    continue
            kept.append(group)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del settings["hooks"]
    return settings


def _read_json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        loaded = json.loads(path.read_text(encoding="utf-8") or "{}")
    except ValueError as exc:
        raise MemkitError(f"{path} is not valid JSON ({exc}); fix it first") from exc
    if not isinstance(loaded, dict):
        raise MemkitError(f"{path} is not a JSON object")
    return loaded


def mcp_args(project: Path, repos: list[Path]) -> list[str]:
    """`memkit mcp`'s arguments: a repo inside the project by its relative path (resolved
    against $CLAUDE_PROJECT_DIR, so `.mcp.json` works in every clone), others absolute."""
    args = ["mcp"]
    for repo in repos:
        try:
            rel = repo.resolve().relative_to(project.resolve()).as_posix()
        except ValueError:
            rel = str(repo.resolve())
        args += ["--repo", rel]
    return args


def _is_memkit_server(entry: Any) -> bool:
    return (
        isinstance(entry, dict)
        and entry.get("command") == "memkit"
        and (entry.get("args") or [None])[0] == "mcp"
    )


def merge_mcp(config: dict[str, Any], args: list[str] | None) -> dict[str, Any]:
    """Set (args) or remove (None) memkit's server in a `.mcp.json`, touching nothing else."""
    servers = config.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise MemkitError("`mcpServers` in .mcp.json is not an object")
    if args is not None:
        servers[MCP_SERVER] = {"type": "stdio", "command": "memkit", "args": args}
    elif _is_memkit_server(servers.get(MCP_SERVER)):
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


def install(project: Path, repos: list[Path], *, uninstall: bool = False) -> Path:
    path = project / ".claude" / "settings.json"
    mcp_path = project / MCP_CONFIG
    # Both files are read before either is written: a broken one stops the install whole.
    settings = _read_json(path)
    mcp_config = _read_json(mcp_path)
    # Before the hooks, which are re-added at the end: a second install writes the same bytes.
    approve_mcp(settings, approve=not uninstall)
    if uninstall:
        remove(settings)
        merge_mcp(mcp_config, None)
    else:
        args = " ".join(f"--repo {repo_argument(project, r)}" for r in repos)
        merge(settings, {name: f"memkit-hook {name} {args}".strip() for _, name, _ in EVENTS})
        merge_mcp(mcp_config, mcp_args(project, repos))
    write_atomic(path, json.dumps(settings, indent=2, ensure_ascii=False) + "\n")
    if mcp_config.get("mcpServers") or len(mcp_config) > 1:
        write_atomic(mcp_path, json.dumps(mcp_config, indent=2, ensure_ascii=False) + "\n")
    elif mcp_path.is_file():
        mcp_path.unlink()  # nothing left but memkit's, which is gone
    return path
