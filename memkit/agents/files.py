"""What every agent's settings writer needs: a JSON object read whole before anything is
written, written back atomically (or removed when nothing but memkit's was in it), memkit's
MCP server in an `mcpServers` table, and a repository named relative to the project so that
the files a team commits work in every clone (one `..` at most: cloned side by side)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from memkit.errors import MemkitError
from memkit.files import write_atomic

MCP_SERVER = "memkit"
HOOK_MARK = "memkit-hook "


def relative_form(project: Path, repo: Path) -> str | None:
    """The repository's path relative to the project (posix) when it lies inside it or beside
    it (one `..` at most: a teammate clones both side by side); None for any other place."""
    rel = Path(os.path.relpath(repo.resolve(), project.resolve()))
    if rel.parts.count("..") > 1:
        return None
    return rel.as_posix()


def read_object(path: Path) -> dict[str, Any]:
    """The JSON object in `path` ({} when there is none); MemkitError when it is not one."""
    if not path.is_file():
        return {}
    try:
        loaded = json.loads(path.read_text(encoding="utf-8") or "{}")
    except ValueError as exc:
        raise MemkitError(f"{path} is not valid JSON ({exc}); fix it first") from exc
    if not isinstance(loaded, dict):
        raise MemkitError(f"{path} is not a JSON object")
    return loaded


def write_object(path: Path, data: dict[str, Any], *, keep_empty: bool) -> None:
    if data or keep_empty:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    elif path.is_file():
        path.unlink()  # nothing left but memkit's, which is gone


def is_memkit_server(entry: Any) -> bool:
    return (
        isinstance(entry, dict)
        and entry.get("command") == "memkit"
        and (entry.get("args") or [None])[0] == "mcp"
    )


def merge_mcp(config: dict[str, Any], args: list[str] | None, name: str) -> dict[str, Any]:
    """Set (args) or remove (None) memkit's server in a config's `mcpServers`, touching
    nothing else; `name` is the file, for the error."""
    servers = config.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise MemkitError(f"`mcpServers` in {name} is not an object")
    if args is not None:
        servers[MCP_SERVER] = {"command": "memkit", "args": args}
    elif is_memkit_server(servers.get(MCP_SERVER)):
        del servers[MCP_SERVER]
    if not servers:
        del config["mcpServers"]
    return config


def is_memkit_hook(hook: Any, key: str = "command") -> bool:
    return isinstance(hook, dict) and HOOK_MARK in str(hook.get(key, ""))


def remove_hooks(hooks: dict[str, Any], *, key: str = "command", grouped: bool = True) -> None:
    """memkit's entries out of a `hooks` table (event -> a list of entries, or of groups of
    them when `grouped`, as Claude Code, Codex and Gemini CLI have them), the rest kept."""
    place_hooks(hooks, {}, key=key, grouped=grouped)


def place_hooks(
    hooks: dict[str, Any], ours: dict[str, Any], *, key: str = "command", grouped: bool = True
) -> None:
    """memkit's entry for each event of `ours` where memkit's was (so installing again writes
    the same bytes), else at the end; memkit's entries of other events taken out."""
    remaining = dict(ours)
    for event in list(hooks):
        entries = hooks[event]
        if not isinstance(entries, list):
            continue
        kept = []
        for entry in entries:
            inner = entry.get("hooks") if grouped and isinstance(entry, dict) else None
            mine = (
                any(is_memkit_hook(h, key) for h in inner)
                if isinstance(inner, list)
                else not grouped and is_memkit_hook(entry, key)
            )
            if not mine:
                kept.append(entry)
            elif event in remaining:
                kept.append(remaining.pop(event))
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    for event, entry in remaining.items():
        hooks.setdefault(event, []).append(entry)


def hooks_table(settings: dict[str, Any], name: str) -> dict[str, Any]:
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise MemkitError(f"`hooks` in {name} is not an object")
    return hooks
