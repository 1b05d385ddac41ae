"""Which memory repositories a project's agent files name (`memkit install AGENT` wrote them):
what `memkit doctor` checks and what every command run in the code project serves."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from memkit.agents.files import MCP_SERVER
from memkit.agents.install import (
    CODEX_HOOKS,
    COPILOT_HOOKS,
    CURSOR_HOOKS,
    GEMINI_SETTINGS,
    OPENCODE_CONFIG,
)

# agent -> (its file, the key of a hook's command, whether hooks come in groups)
HOOK_FILES = {
    "codex": (CODEX_HOOKS, "command", True),
    "gemini": (GEMINI_SETTINGS, "command", True),
    "cursor": (CURSOR_HOOKS, "command", False),
    "copilot": (COPILOT_HOOKS, "bash", False),
}


def _commands(data: dict[str, Any], key: str, *, grouped: bool) -> list[str]:
    hooks = data.get("hooks")
    found: list[str] = []
    for entries in hooks.values() if isinstance(hooks, dict) else ():
        for entry in entries if isinstance(entries, list) else ():
            inner = entry.get("hooks") if grouped and isinstance(entry, dict) else [entry]
            for hook in inner if isinstance(inner, list) else ():
                command = hook.get(key) if isinstance(hook, dict) else None
                if isinstance(command, str) and "memkit-hook " in command:
                    found.append(command)
    return found


def _repo_flags(words: list[str]) -> list[str]:
    return [words[i + 1] for i, w in enumerate(words[:-1]) if w == "--repo"]


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def named(project: Path) -> dict[str, list[str]]:
    """agent -> the repositories (as written) its files in `project` name, for each agent
    wired there."""
    out: dict[str, list[str]] = {}
    for agent, (rel, key, grouped) in HOOK_FILES.items():
        path = project / rel
        if not path.is_file():
            continue
        repos: list[str] = []
        for command in _commands(_read(path), key, grouped=grouped):
            try:
                repos += _repo_flags(shlex.split(command))
            except ValueError:
                continue
        out[agent] = list(dict.fromkeys(repos))
    config = _read(project / OPENCODE_CONFIG)
    servers = config.get("mcp")
    entry = servers.get(MCP_SERVER) if isinstance(servers, dict) else None
    words = entry.get("command") if isinstance(entry, dict) else None
    if isinstance(words, list):
        out["opencode"] = _repo_flags([str(w) for w in words])
    return out


def wired_repos(project: Path) -> list[Path]:
    """Every repository the agents' files in `project` name, resolved from the project."""
    found = [(project / r).resolve() for repos in named(project).values() for r in repos]
    return list(dict.fromkeys(found))
