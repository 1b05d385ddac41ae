"""Merging memkit's hook entries into a project's `.claude/settings.json`, idempotently."""

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


def install(project: Path, repos: list[Path], *, uninstall: bool = False) -> Path:
    path = project / ".claude" / "settings.json"
    settings: dict[str, Any] = {}
    if path.is_file():
        try:
            loaded = json.loads(path.read_text(encoding="utf-8") or "{}")
        except ValueError as exc:
            raise MemkitError(f"{path} is not valid JSON ({exc}); fix it first") from exc
        if not isinstance(loaded, dict):
            raise MemkitError(f"{path} is not a JSON object")
        settings = loaded
    if uninstall:
        remove(settings)
    else:
        args = " ".join(f"--repo {repo_argument(project, r)}" for r in repos)
        merge(settings, {name: f"memkit-hook {name} {args}".strip() for _, name, _ in EVENTS})
    write_atomic(path, json.dumps(settings, indent=2, ensure_ascii=False) + "\n")
    return path
