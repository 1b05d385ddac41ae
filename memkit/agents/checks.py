"""`memkit doctor`'s lines for the other agents wired in a project: for each one whose files
name memkit, are its hooks and its MCP server there, do the repositories they name exist here,
is `memkit-hook` on the PATH, and what the agent itself still asks of its user (Codex CLI:
trusting the project and the hooks)."""

from __future__ import annotations

import os
import shlex
import shutil
import tomllib
from pathlib import Path

from memkit.agents.install import (
    CODEX_CONFIG,
    COPILOT_MCP,
    CURSOR_MCP,
    GEMINI_SETTINGS,
    OPENCODE_CONFIG,
)
from memkit.agents.wired import named
from memkit.checkup import FAIL, OK, WARN, Check

NAMES = {
    "codex": "Codex CLI",
    "gemini": "Gemini CLI",
    "cursor": "Cursor",
    "opencode": "OpenCode",
    "copilot": "Copilot CLI",
}
MCP_FILES = {
    "codex": CODEX_CONFIG,
    "gemini": GEMINI_SETTINGS,
    "cursor": CURSOR_MCP,
    "opencode": OPENCODE_CONFIG,
    "copilot": COPILOT_MCP,
}


def _codex_trusted(project: Path) -> bool:
    home = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")
    try:
        config = tomllib.loads((home / "config.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return False
    projects = config.get("projects")
    entry = projects.get(str(project)) if isinstance(projects, dict) else None
    return isinstance(entry, dict) and entry.get("trust_level") == "trusted"


def agent_checks(project: Path) -> list[Check]:
    checks: list[Check] = []
    fix = f"memkit install {{agent}} --project {shlex.quote(str(project))} --repo PATH"
    for agent, repos in named(project).items():
        name = NAMES[agent]
        missing = [r for r in repos if not ((project / r) / "memkit.yaml").is_file()]
        mcp = (
            (project / MCP_FILES[agent]).read_text(encoding="utf-8", errors="replace")
            if (project / MCP_FILES[agent]).is_file()
            else ""
        )
        if missing:
            where = ", ".join(f"{r} ({(project / r).resolve()})" for r in missing)
            checks.append(
                Check(FAIL, name, f"names {where}, which is not a memory repository here",
                      "git clone the memory repository there, or " + fix.format(agent=agent))
            )  # fmt: skip
        elif not repos and not os.environ.get("MEMKIT_REPOS"):
            checks.append(
                Check(FAIL, name, "its hooks name no memory repository and MEMKIT_REPOS is "
                      "not set", fix.format(agent=agent))
            )  # fmt: skip
        elif "memkit" not in mcp:
            checks.append(
                Check(WARN, name, f"memkit's MCP server is not in {MCP_FILES[agent]}",
                      fix.format(agent=agent))
            )  # fmt: skip
        elif agent != "opencode" and shutil.which("memkit-hook") is None:
            checks.append(
                Check(FAIL, name, "hooks installed, but `memkit-hook` is not on PATH",
                      "start the agent from memkit's environment, or install memkit with pipx")
            )  # fmt: skip
        elif agent == "codex" and not _codex_trusted(project):
            checks.append(
                Check(WARN, name, "wired, but Codex runs a project's hooks only in a trusted "
                      "project, and each hook only once you trust it",
                      "start `codex` in the project, trust it, then trust memkit's hooks in /hooks")
            )  # fmt: skip
        else:
            listed = ", ".join(repos) or "MEMKIT_REPOS"
            checks.append(Check(OK, name, f"hooks and MCP server wired; memory: {listed}"))
    return checks
