"""Is this clone of a memory repository set up to work? The checks behind `memkit doctor`.

Each check says ok, warn or fail, what it found and, when something is wrong, the command
that fixes it. What a teammate asks when memory does not show up in Claude Code: are the git
hooks installed, is `memkit` on the PATH they run with, is the index current and sound (with
the usage log, `.memkit/` itself and the engine: `memkit.localstate`), does the model load,
who am I to memkit, are the Claude Code hooks wired in this project (and, in
`memkit.wiring_checks`, do the repositories they name exist, does the MCP server answer in
time, does the warm engine answer).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
from pathlib import Path

from memkit import cloneguard
from memkit.agents.checks import agent_checks
from memkit.checkup import FAIL, OK, WARN, Check
from memkit.claude.skipped import check_skipped
from memkit.claude.wiring import MCP_CONFIG
from memkit.config import load_config
from memkit.embedding import ModelError
from memkit.embedding.usercache import model_cache_dir
from memkit.errors import MemkitError
from memkit.localstate import check_engine, check_folder, check_index, check_usage
from memkit.onboard import HOOK_TYPES, hooked_memkit, hooks_folder
from memkit.roles import identify
from memkit.wiring_checks import check_engine_answers, claude_checks

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.embedding.encoder"}


def check_git_hooks(root: Path) -> Check:
    folder = hooks_folder(root)
    if folder is None:
        return Check(FAIL, "git hooks", "not a git repository", "git init, then memkit init --join")
    missing = []
    for hook in HOOK_TYPES:
        try:
            text = (folder / hook).read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        if "pre-commit" not in text:
            missing.append(hook)
    if missing:
        return Check(
            FAIL,
            "git hooks",
            f"not installed for {', '.join(missing)}: commits are not checked"
            + (", the index is not refreshed after pulls" if "post-merge" in missing else ""),
            "memkit init --join",
        )
    return Check(OK, "git hooks", f"installed for {', '.join(HOOK_TYPES)}")


def check_clone_guard(root: Path) -> Check:
    """`memkit.cloneguard`: the fetch guard and the attributes that keep git from rewriting
    the memory's files."""
    folder = hooks_folder(root)
    try:
        hook = "" if folder is None else (folder / cloneguard.HOOK).read_text("utf-8", "replace")
    except OSError:
        hook = ""
    if cloneguard.MARK not in hook:
        what = "a hook of your own is in its place" if hook else "not installed"
        return Check(
            WARN,
            "clone guard",
            f"{what}: a pushed `.memkit` would replace this clone's own state at a pull",
            "memkit init --join",
        )
    return Check(OK, "clone guard", "a fetch that would replace .memkit/ is refused")


def check_path(root: Path) -> Check:
    found = shutil.which("memkit")
    if found is not None:
        return Check(OK, "memkit on PATH", found)
    hooked = hooked_memkit(root)
    fix = "activate memkit's virtual environment, or install memkit with pipx"
    if hooked is not None and os.access(hooked, os.X_OK):
        return Check(WARN, "memkit on PATH", f"not found; the git hooks use {hooked}", fix)
    return Check(FAIL, "memkit on PATH", "not found; the git hooks run `memkit` and will fail", fix)


def check_model(root: Path, model: str) -> Check:
    from memkit.embedding import load_encoder

    try:
        encoder = load_encoder(model, cache_dir=model_cache_dir(root), base=root)
        encoder.encode(["memkit doctor"])
    except (ModelError, OSError, ValueError) as exc:
        return Check(FAIL, "embedding model", str(exc), "fix `embedding.model` in memkit.yaml")
    return Check(OK, "embedding model", f"{model} loads ({encoder.dim} dimensions)")


def check_identity(root: Path) -> Check:
    who = identify(root)
    roles = ", ".join(sorted(who.roles)) or "none"
    detail = f"{who.user} <{who.email or 'no git email'}>, roles: {roles}"
    if not who.email:
        return Check(WARN, "identity", detail, 'git config user.email "you@example.com"')
    if not who.known:
        return Check(
            WARN,
            "identity",
            detail + "; not on the whitelist (shared/_roles.md): shared atoms and your own only",
            "ask management to add you to shared/_roles.md",
        )
    return Check(OK, "identity", detail)


def check_claude(project: Path) -> Check:
    settings = project / ".claude" / "settings.json"
    try:
        data = json.loads(settings.read_text(encoding="utf-8"))
    except OSError:
        data = None
    except ValueError as exc:
        return Check(FAIL, "Claude Code", f"{settings} is not valid JSON ({exc})", "fix the file")
    if "memkit-hook" not in json.dumps(data or {}):
        return Check(
            WARN,
            "Claude Code",
            f"memkit's hooks are not in {settings}",
            f"memkit install claude --project {project}",
        )
    if shutil.which("memkit-hook") is None:
        return Check(
            FAIL,
            "Claude Code",
            "hooks installed, but `memkit-hook` is not on PATH: Claude Code cannot run them",
            "start Claude Code from memkit's environment, or install memkit with pipx",
        )
    return Check(OK, "Claude Code", f"hooks installed in {settings}")


def diagnose(root: Path, project: Path) -> list[Check]:
    try:
        config = load_config(root)
    except MemkitError as exc:
        return [Check(FAIL, "memkit.yaml", str(exc), "fix memkit.yaml")]
    return [
        Check(OK, "memory repository", str(root)),
        check_git_hooks(root),
        check_clone_guard(root),
        check_path(root),
        *check_folder(root),
        *check_index(root),
        check_usage(root),
        check_model(root, config.embedding_model),
        check_identity(root),
        check_engine(root),
        check_skipped(root),
        *_agent_checks(root, project),
        *agent_checks(project),
    ]


def _agent_checks(root: Path, project: Path) -> list[Check]:
    """Claude Code's wiring in `project`; run in the memory repository itself, which a
    team's agent does not work in (it works in code projects that name it), only when
    something is wired here: otherwise there is nothing to act on."""
    wired_here = (root / ".claude" / "settings.json").exists() or (root / MCP_CONFIG).exists()
    if project.resolve() == root.resolve() and not wired_here:
        engine = check_engine_answers(root)
        return [
            Check(
                OK,
                "Claude Code",
                "wired in code projects, not in the memory repository (in a project: "
                f"`memkit install claude --repo {shlex.quote(str(root))}`)",
            ),
            *([engine] if engine else []),
        ]
    return [check_claude(project), *claude_checks(root, project)]
