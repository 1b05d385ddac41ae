"""How a project names its memory repositories for Claude Code, so that the files a team
commits work in every clone.

Claude Code 2.1.197 reads `.claude/settings.json` only in the folder it starts in (the project:
`$CLAUDE_PROJECT_DIR`, the hooks' working folder), finds `.mcp.json` there or in a folder
above, and starts the MCP server in the folder it was started in, without expanding
`${CLAUDE_PROJECT_DIR}` in its arguments. So a repository inside the project or beside it
(`../team-memory`: cloned side by side, as a team does) is written relative to the project:
`"$CLAUDE_PROJECT_DIR"/../team-memory` in the hook commands (the shell expands it), and
`../team-memory` in `.mcp.json` (`memkit mcp` resolves it against the folder of that file).
Any other repository (`~/my-memory`) is a path of this machine: it goes into the user's own
`.claude/settings.local.json`, never committed, as `env.MEMKIT_REPOS`, which Claude Code
passes to the hooks and the MCP server alike.
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SETTINGS = ".claude/settings.json"
LOCAL_SETTINGS = ".claude/settings.local.json"
MCP_CONFIG = ".mcp.json"
REPOS_ENV = "MEMKIT_REPOS"  # os.pathsep-separated; read by memkit-hook and memkit mcp
PROJECT_DIR = "$CLAUDE_PROJECT_DIR"
HOOK_COMMAND = "memkit-hook"
MCP_SERVER = "memkit"


def hook_argument(rel: str) -> str:
    return f'"{PROJECT_DIR}"' + ("" if rel == "." else "/" + shlex.quote(rel))


def env_repos(value: str | None) -> list[str]:
    return [p for p in (value or "").split(os.pathsep) if p.strip()]


@dataclass(frozen=True)
class Named:
    """A repository as one of the project's files names it, and where that is here."""

    written: str
    path: Path
    source: str

    @property
    def machine_path(self) -> bool:
        """An absolute path in a file the team commits: no teammate's clone has it."""
        return self.source != LOCAL_SETTINGS and (
            self.written.startswith(("/", "~")) or Path(self.written).is_absolute()
        )


def read_json(path: Path) -> dict[str, Any] | None:
    """A settings file's object; None when absent; ValueError when it is not one."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    loaded = json.loads(text or "{}")
    if not isinstance(loaded, dict):
        raise ValueError(f"{path} is not a JSON object")
    return loaded


def memkit_hook_commands(settings: dict[str, Any]) -> list[str]:
    hooks = settings.get("hooks")
    found = []
    for groups in hooks.values() if isinstance(hooks, dict) else ():
        for group in groups if isinstance(groups, list) else ():
            for hook in group.get("hooks", []) if isinstance(group, dict) else ():
                command = hook.get("command") if isinstance(hook, dict) else None
                if isinstance(command, str) and HOOK_COMMAND + " " in command:
                    found.append(command)
    return found


def _repo_flags(words: list[str]) -> list[str]:
    out = [words[i + 1] for i, w in enumerate(words[:-1]) if w == "--repo"]
    return out + [w[len("--repo=") :] for w in words if w.startswith("--repo=")]


def _resolve(written: str, base: Path) -> Path:
    for var in (PROJECT_DIR, "${CLAUDE_PROJECT_DIR}"):
        if written.startswith(var):
            written = str(base) + written[len(var) :]
    return (base / Path(written).expanduser()).resolve()


def hook_repos(project: Path, settings: dict[str, Any]) -> list[Named]:
    named: dict[str, Named] = {}
    for command in memkit_hook_commands(settings):
        try:
            words = shlex.split(command)
        except ValueError:
            continue
        for written in _repo_flags(words):
            named.setdefault(written, Named(written, _resolve(written, project), SETTINGS))
    return list(named.values())


def mcp_entry(config: dict[str, Any] | None) -> dict[str, Any] | None:
    servers = (config or {}).get("mcpServers")
    entry = servers.get(MCP_SERVER) if isinstance(servers, dict) else None
    return entry if isinstance(entry, dict) else None


def mcp_repos(project: Path, config: dict[str, Any] | None) -> list[Named]:
    entry = mcp_entry(config)
    args = entry.get("args") if entry else None
    words = [a for a in args if isinstance(a, str)] if isinstance(args, list) else []
    return [Named(w, _resolve(w, project), MCP_CONFIG) for w in _repo_flags(words)]


def local_repos(local: dict[str, Any] | None) -> list[Named]:
    env = (local or {}).get("env")
    value = env.get(REPOS_ENV) if isinstance(env, dict) else None
    written = env_repos(value if isinstance(value, str) else None)
    return [Named(w, Path(w).expanduser().resolve(), LOCAL_SETTINGS) for w in written]


def set_local_repos(local: dict[str, Any], repos: list[Path]) -> None:
    """Put (or, with none, take out) memkit's repositories in the user's local settings."""
    env = local.get("env")
    if not isinstance(env, dict):
        env = {}
    env.pop(REPOS_ENV, None)
    if repos:
        env[REPOS_ENV] = os.pathsep.join(str(r.resolve()) for r in repos)
    if env:
        local["env"] = env
    else:
        local.pop("env", None)
