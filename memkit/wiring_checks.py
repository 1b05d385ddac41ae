"""`memkit doctor`'s checks of what Claude Code runs: the memory repositories the project's
hooks and MCP server name (do they exist here? does a committed file name a path of one
machine?), the MCP server itself (does it answer `initialize`, and in time for Claude Code's
first request?) and the warm engine (does it answer a request?).

Each is done the way Claude Code does it: the settings and `.mcp.json` read as it reads them
(`memkit.claude.wiring`), the server started from `.mcp.json` in the project's folder.
"""

from __future__ import annotations

import json
import os
import selectors
import shlex
import shutil
import subprocess
import time
from pathlib import Path

from memkit.checkup import FAIL, OK, WARN, Check
from memkit.claude.wiring import (
    LOCAL_SETTINGS,
    MCP_CONFIG,
    SETTINGS,
    Named,
    hook_repos,
    local_repos,
    mcp_entry,
    mcp_repos,
    read_json,
)
from memkit.mcp.lookup import SEARCH_KIND
from memkit.mcp.rpc import initialize_request
from memkit.recall.client import SOCKET, ask
from memkit.recall.trust import engine_socket

MCP_WAIT = 10.0  # seconds for the server's answers before doctor calls it dead
# Claude Code 2.1.197 (`claude -p`) sends its first request ~2 s after starting its servers,
# with the tools of those that have answered by then.
FIRST_REQUEST = 2.0


def named_repos(project: Path) -> tuple[list[Named], list[Check]]:
    """Every repository the project's files name, and a check for each file that cannot be
    read."""
    named: list[Named] = []
    problems: list[Check] = []
    for rel, read in (
        (SETTINGS, lambda d: hook_repos(project, d)),
        (MCP_CONFIG, lambda d: mcp_repos(project, d)),
        (LOCAL_SETTINGS, local_repos),
    ):
        try:
            data = read_json(project / rel)
        except (OSError, ValueError) as exc:
            problems.append(Check(FAIL, "Claude Code wiring", f"{rel}: {exc}", "fix the file"))
            continue
        if data is not None:
            named += read(data)
    return named, problems


def check_wiring(project: Path) -> list[Check]:
    named, checks = named_repos(project)
    where: dict[Path, list[Named]] = {}
    for n in named:
        where.setdefault(n.path, []).append(n)
    for path, names in where.items():
        said = ", ".join(sorted({f"{n.written} in {n.source}" for n in names}))
        if not (path / "memkit.yaml").is_file():
            what = "is not a memory repository" if path.exists() else "does not exist"
            fix = f"git clone the memory repository to {path}, or memkit install claude --repo PATH"
            checks.append(Check(FAIL, "Claude Code wiring", f"{said}: {path} {what}", fix))
    for n in named:
        if n.machine_path:
            checks.append(
                Check(
                    WARN,
                    "Claude Code wiring",
                    f"{n.source} names {n.written}, a path of this machine: a teammate's clone "
                    "has no such folder",
                    f"memkit install claude --project {shlex.quote(str(project))} --repo "
                    f"{shlex.quote(n.written)} (names it relative to the project, or in "
                    f"{LOCAL_SETTINGS})",
                )
            )
    if named and not checks:
        listed = ", ".join(dict.fromkeys(f"{n.written} ({n.path})" for n in named))
        checks.append(Check(OK, "Claude Code wiring", f"memory repositories: {listed}"))
    return checks


def _exchange(argv: list[str], project: Path) -> tuple[list[dict[str, object]], float, str]:
    """Start the server as Claude Code does and ask `initialize` and `tools/list`: the answers,
    the seconds until the first one, and the last line of its stderr."""
    ask = [
        initialize_request("memkit-doctor"),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project)}
    start = time.monotonic()
    proc = subprocess.Popen(
        argv,
        cwd=project,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None  # noqa: S101 (pipes asked for)
    answers: list[dict[str, object]] = []
    first = 0.0
    try:
        proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in ask))
        proc.stdin.flush()
        for _ in range(2):
            line = _readline(proc, start + MCP_WAIT)
            if not line:
                break
            answers.append(json.loads(line))
            first = first or time.monotonic() - start
    except (OSError, ValueError):
        pass
    finally:
        proc.kill()
        _, err = proc.communicate(timeout=30)
    tail = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
    return answers, first, tail[0]


def _readline(proc: subprocess.Popen[bytes], deadline: float) -> bytes:
    assert proc.stdout is not None  # noqa: S101
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        if not sel.select(max(0.0, deadline - time.monotonic())):
            return b""
    return proc.stdout.readline()


def check_mcp(project: Path) -> Check:
    try:
        entry = mcp_entry(read_json(project / MCP_CONFIG))
    except (OSError, ValueError):
        entry = None  # check_wiring names the broken file
    fix = f"memkit install claude --project {shlex.quote(str(project))}"
    if entry is None:
        return Check(WARN, "MCP server", f"memkit's server is not in {project / MCP_CONFIG}", fix)
    command, args = entry.get("command"), entry.get("args") or []
    if not isinstance(command, str) or not isinstance(args, list):
        return Check(FAIL, "MCP server", f"memkit's entry in {MCP_CONFIG} is malformed", fix)
    found = shutil.which(command)
    if found is None:
        return Check(
            FAIL,
            "MCP server",
            f"`{command}` is not on PATH: Claude Code cannot start the server",
            "start Claude Code from memkit's environment, or install memkit with pipx",
        )
    answers, took, stderr = _exchange([found, *map(str, args)], project)
    listed = answers[1].get("result") if len(answers) > 1 else None
    tools = listed.get("tools") if isinstance(listed, dict) else None
    if not answers or "result" not in answers[0] or not isinstance(tools, list):
        why = f": {stderr}" if stderr else f" within {MCP_WAIT:.0f} s"
        return Check(
            FAIL, "MCP server", f"`{command} {shlex.join(map(str, args))}` did not answer{why}", fix
        )
    if took > FIRST_REQUEST:
        return Check(
            WARN,
            "MCP server",
            f"answered `initialize` only after {took:.1f} s: Claude Code may send its first "
            "request without memkit's tools (a busy machine?)",
            "memkit doctor again when the machine is quieter; docs/mcp.md",
        )
    return Check(OK, "MCP server", f"answers `initialize` in {took:.2f} s, {len(tools)} tools")


def check_engine_answers(root: Path) -> Check | None:
    """A running engine asked one search (None when none runs: the hooks start it)."""
    if engine_socket(str(root), SOCKET) is None:
        return None
    query = json.dumps({"text": "memkit doctor", "limit": 1})
    start = time.monotonic()
    try:
        answer = json.loads(ask(root, SEARCH_KIND, query, [str(root)], 5.0))
    except (OSError, ValueError) as exc:
        return Check(
            FAIL,
            "warm engine answers",
            f"it did not answer a search ({type(exc).__name__}): hooks answer by themselves",
            f"memkit serve --stop --repo {shlex.quote(str(root))}",
        )
    if not isinstance(answer, dict) or "rows" not in answer:
        return Check(FAIL, "warm engine answers", "its answer to a search is not one memkit gives")
    return Check(OK, "warm engine answers", f"a search in {time.monotonic() - start:.2f} s")


def claude_checks(root: Path | None, project: Path) -> list[Check]:
    engine = check_engine_answers(root) if root is not None else None
    return [*check_wiring(project), check_mcp(project), *([engine] if engine else [])]
