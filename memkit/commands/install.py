"""memkit install AGENT...: wire memkit's hooks and MCP server into a project's agent settings
(Claude Code, Codex CLI, Gemini CLI, Cursor, OpenCode, Copilot CLI)."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import Any

from memkit.agents.dialects import AGENTS
from memkit.agents.files import relative_form
from memkit.agents.install import install as install_agent
from memkit.claude.install import install
from memkit.claude.wiring import LOCAL_SETTINGS
from memkit.errors import UsageError
from memkit.repo import nearest_repo, trusted_root


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "install",
        help="install memkit's hooks and MCP server in a project, for Claude Code, Codex CLI, "
        "Gemini CLI, Cursor, OpenCode or Copilot CLI",
        description="Merge memkit's hook entries into PROJECT/.claude/settings.json and its "
        "MCP server (`memkit mcp`) into PROJECT/.mcp.json, keeping every other hook, server and "
        "setting, and grants the read-only MCP tools (search, get, timeline) in the project's "
        "permissions; running it again changes nothing; --uninstall removes only memkit's "
        "entries. Name one or more memory repositories with --repo (team, personal, ...); by "
        "default the project itself, or the memory repo it lies in. A repository in or beside "
        "the project is named relative to it, so the committed files work in every clone; any "
        "other goes into your own .claude/settings.local.json (MEMKIT_REPOS). The other agents "
        "(codex, gemini, cursor, opencode, copilot: one or several) get the same in their own "
        "files (docs/agents.md); a repository neither in nor beside the project is left to "
        "MEMKIT_REPOS in your environment.",
    )
    parser.add_argument("target", nargs="+", choices=("claude", *AGENTS), metavar="AGENT")
    parser.add_argument("--project", type=Path, default=Path(), help="default: here")
    parser.add_argument(
        "--repo", type=Path, action="append", default=[], help="a memory repository (repeatable)"
    )
    parser.add_argument("--uninstall", action="store_true")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    project = args.project.resolve()
    if not project.is_dir():
        raise UsageError(f"{project} is not a folder")

    repos = [r.resolve() for r in args.repo]
    for repo in repos:
        if not (repo / "memkit.yaml").is_file():
            raise UsageError(f"{repo} is not a memory repository (no memkit.yaml)")
    if not repos and not args.uninstall:
        found = nearest_repo(project)
        if found is None:
            raise UsageError("no memory repository here: pass --repo PATH")
        repos = [found]
    if not args.uninstall:
        # Before anything is written: the hooks would serve what these repositories hold.
        repos = [trusted_root(repo) for repo in repos]
    for target in dict.fromkeys(args.target):
        if target == "claude":
            _claude(project, repos, args)
        else:
            _agent(target, project, repos, uninstall=args.uninstall)
    _check_path(uninstall=args.uninstall)
    return 0


NEXT_STEP = {
    "codex": "Codex runs a project's hooks only in a trusted project, and each new or changed "
    "hook only once you trust it: start `codex` here once, trust the folder, then review and "
    "trust memkit's hooks in /hooks",
    "gemini": "Gemini CLI reads a project's settings only in a trusted folder: start `gemini` "
    "here once and trust it (or GEMINI_CLI_TRUST_WORKSPACE=true in CI)",
    "cursor": "Cursor adds memory when a chat starts (sessionStart), not before each prompt; "
    "the MCP server's `search` gives the rest",
    "opencode": "OpenCode loads .opencode/plugin/memkit.js by itself",
    "copilot": "Copilot CLI loads .github/hooks/ and .mcp.json in a folder you trusted",
}


def _agent(agent: str, project: Path, repos: list[Path], *, uninstall: bool) -> None:
    named = [rel for repo in repos if (rel := relative_form(project, repo)) is not None]
    written = install_agent(agent, project, named, uninstall=uninstall)
    files = ", ".join(str(p.relative_to(project)) for p in written)
    if uninstall:
        print(f"memkit: removed memkit's {agent} wiring from {project} ({files})")
        return
    print(f"memkit: wired {agent} in {project} ({files})")
    for repo in repos:
        rel = relative_form(project, repo)
        if rel is None:
            print(
                f"memkit: {repo} is neither in nor beside the project, so no file the team "
                f"commits names it: export MEMKIT_REPOS={repo} in your shell profile (the "
                f"hooks and `memkit mcp` read it)"
            )
        else:
            print(f"memkit: wiring the memory repository {repo}, named as {rel}")
    print(f"memkit: {NEXT_STEP[agent]}")


def _claude(project: Path, repos: list[Path], args: argparse.Namespace) -> None:
    settings, mcp = project / ".claude" / "settings.json", project / ".mcp.json"
    before = _contents(settings), _contents(mcp)
    path = install(project, repos, uninstall=args.uninstall)
    unchanged = before[0] is not None and _contents(path) == before[0]
    if args.uninstall:
        verb = "memkit's hooks were not in" if unchanged else "removed memkit's hooks from"
    else:
        verb = (
            "memkit's hooks are already installed in"
            if unchanged
            else "installed memkit's hooks in"
        )
    print(f"memkit: {verb} {path}")
    same = _contents(mcp) == before[1]
    if args.uninstall:
        verb = "memkit's MCP server was not in" if same else "removed memkit's MCP server from"
    else:
        verb = "memkit's MCP server is already in" if same else "registered memkit's MCP server in"
    print(f"memkit: {verb} {mcp}")
    if not args.uninstall:
        _say_where(project, repos)


def _check_path(*, uninstall: bool) -> None:
    for program in ("memkit-hook", "memkit"):
        if not uninstall and shutil.which(program) is None:
            print(
                f"memkit: warning: `{program}` is not on PATH; the agent will not find it "
                "(activate memkit's environment or install memkit with pipx)",
                file=sys.stderr,
            )


def _say_where(project: Path, repos: list[Path]) -> None:
    for repo in repos:
        rel = relative_form(project, repo)
        if rel is not None:
            print(
                f"memkit: wiring the memory repository {repo}, named as {rel} "
                "(relative: the files work in every clone)"
            )
        else:
            print(
                f"memkit: wiring the memory repository {repo}: neither in nor beside the "
                f"project, so named in your own {project / LOCAL_SETTINGS}, which is not committed"
            )


def _contents(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None
