"""Helpers for tests: real memory repositories in temp folders, real git, real memkit."""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memkit.index import refresh
from memkit.index.store import current_generation, read_meta
from memkit.onboard import create

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    import pytest


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=check)


def memkit(
    *args: str, cwd: Path, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the real CLI in a fresh process, as a user or a git hook would (`env`: variables
    to set for it)."""
    return subprocess.run(
        [sys.executable, "-m", "memkit", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        input=stdin,
        env={**os.environ, **env} if env else None,
        check=False,
    )


# Repositories `memkit init` made in this run, by (hooks, identity): most tests need one as
# their starting point, not as what they test, and a copy costs ~20 ms where init and its
# first commit through the hooks cost ~1 s. Tests of init itself call `create` directly.
_MADE: dict[tuple[bool, str], Path] = {}


def _identity(where: Path) -> str:
    ident = git(where, "var", "GIT_AUTHOR_IDENT", check=False).stdout.strip()
    return ident.rsplit(" ", 2)[0]  # without the timestamp


def make_memory_repo(path: Path, *, hooks: bool = True) -> Path:
    """A memory repository made by `memkit init`, with its first commit."""
    path.parent.mkdir(parents=True, exist_ok=True)
    key = (hooks, _identity(path.parent))
    made = _MADE.get(key)
    if made is None:
        scratch = Path(tempfile.mkdtemp(prefix="memkit-made-"))
        atexit.register(shutil.rmtree, scratch, ignore_errors=True)
        made = scratch / "repo"
        create(made, install_hooks=hooks, commit=True)
        _MADE[key] = made
    shutil.copytree(made, path, symlinks=True, dirs_exist_ok=True)
    return path


def copy_made(made: Path, into: Path) -> Path:
    """Into a test's own folder, a copy of the repositories a module-scoped fixture made once
    (clones, pulls and commits through the hooks cost seconds; a copy, milliseconds). Git
    remotes that pointed inside `made` point inside the copy."""
    shutil.copytree(
        made, into, symlinks=True, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.sock")
    )
    for config in into.glob("*/.git/config"):
        text = config.read_text(encoding="utf-8")
        config.write_text(text.replace(str(made), str(into)), encoding="utf-8")
    return into


def join_clone(origin: Path, clone: Path, email: str) -> subprocess.CompletedProcess[str]:
    """A teammate's fresh clone of `origin`, with their git email, joined (`memkit init
    --join`); returns what the join printed."""
    git(clone.parent, "clone", "--quiet", str(origin), str(clone))
    git(clone, "config", "user.email", email)
    git(clone, "config", "user.name", email.split("@", 1)[0].capitalize())
    joined = memkit("init", "--join", cwd=clone)
    assert joined.returncode == 0, joined.stdout + joined.stderr
    return joined


def user_settings(text: str) -> Path:
    """Write the test user's own settings (`memkit.userconfig`: where credentials go, what
    runs), in the test's XDG_CONFIG_HOME."""
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "memkit" / "config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def atom_text(
    atom_id: str,
    *,
    title: str = "",
    body: str = "- Always send a ping every 30 s; the balancer drops idle sockets after 60 s.",
    type_: str = "fact",
    confidence: str = "observed",
    created: str = "2026-02-08",
    extra: str = "",
) -> str:
    head = (
        f"---\nid: {atom_id}\ntype: {type_}\nconfidence: {confidence}\n"
        f"created: {created}\n{extra}---\n"
    )
    return head + f"# {title or atom_id.replace('-', ' ').capitalize()}\n\n{body}\n"


def write_atom(repo: Path, relpath: str, text: str) -> Path:
    path = repo / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def heartbeat_repo(path: Path, *, hooks: bool = True) -> Path:
    """A memory repository holding one committed, indexed pitfall: the WebSocket heartbeat
    (trigger `websocket`)."""
    repo = make_memory_repo(path, hooks=hooks)
    write_atom(
        repo,
        "shared/ws-heartbeat-interval.md",
        atom_text(
            "ws-heartbeat-interval",
            title="WebSocket heartbeat",
            type_="pitfall",
            body="- Send a WebSocket ping every 30 s.",
            extra="triggers: [websocket]\n",
        ),
    )
    commit_and_index(repo)
    return repo


def write_marked_atoms(repo: Path) -> None:
    """The two atoms the real-CLI tests look for in a model's request, each with its mark: the
    WebSocket heartbeat pitfall (`MEMKIT-MARK-HEARTBEAT`, triggers websocket and heartbeat)
    and the texture atlas fact (`MEMKIT-MARK-TEXTURE`). Written, not committed."""
    write_atom(
        repo,
        "shared/ws-heartbeat-interval.md",
        atom_text(
            "ws-heartbeat-interval",
            title="WebSocket heartbeat",
            type_="pitfall",
            body="- Send a WebSocket ping every 30 s; the balancer drops idle sockets at 60 s. "
            "MEMKIT-MARK-HEARTBEAT",
            extra="triggers: [websocket, heartbeat]\n",
        ),
    )
    write_atom(
        repo,
        "shared/texture-size.md",
        atom_text(
            "texture-size",
            title="Texture atlas size",
            body="- Export texture atlases at 2048 px for mobile. MEMKIT-MARK-TEXTURE",
        ),
    )


def wired_project(folder: Path) -> tuple[Path, Path]:
    """Alice's layout: `folder/team-memory` (`heartbeat_repo`) and beside it `folder/app`, a
    code project whose committed Claude Code files (`memkit install claude --repo
    ../team-memory`) name it. Returns (team-memory, app)."""
    team = heartbeat_repo(folder / "team-memory")
    app = folder / "app"
    (app / "src").mkdir(parents=True)
    (app / "src/main.py").write_text("print('hello')\n", encoding="utf-8")
    git(app, "init", "-q")
    wired = memkit("install", "claude", "--repo", "../team-memory", cwd=app)
    assert wired.returncode == 0, wired.stdout + wired.stderr
    git(app, "add", "-A")
    git(app, "commit", "-q", "-m", "wire memkit into Claude Code")
    return team, app


def commit_and_index(repo: Path, message: str = "atoms") -> None:
    """Commit everything (no hooks: the test is about what comes after) and build the index."""
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", message)
    result = memkit("index", cwd=repo)
    assert result.returncode == 0, result.stderr


def pull_teammates_atom(
    tmp_path: Path, ann_atoms: dict[str, str], bob_relpath: str, bob_atom: str
) -> Path:
    """Ann's clone (`tmp_path/ann`) of a memory holding `ann_atoms` (path -> text) pulls Bob's
    atom, committed to origin with --no-verify; the pull's output is in `tmp_path/pull.out`."""
    origin = make_memory_repo(tmp_path / "origin")
    for relpath, text in ann_atoms.items():
        write_atom(origin, relpath, text)
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "ann's atoms")
    ann = tmp_path / "ann"
    join_clone(origin, ann, "ann@example.com")
    write_atom(origin, bob_relpath, bob_atom)
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "--no-verify", "-m", "bob's atom")
    pull = git(ann, "pull", "--no-rebase", "--quiet", "origin", "main", check=False)
    (tmp_path / "pull.out").write_text(pull.stdout + pull.stderr, encoding="utf-8")
    assert pull.returncode == 0, pull.stdout + pull.stderr
    return ann


def made_pull(
    tmp_path_factory: pytest.TempPathFactory,
    module_home: Callable[[], AbstractContextManager[object]],
    name: str,
    ann_atoms: dict[str, str],
    bob: tuple[str, str],
) -> Path:
    """`pull_teammates_atom` once for a test module (its HOME), in a folder named `name`;
    `bob` is the teammate's atom, (path, text)."""
    tmp_path = tmp_path_factory.mktemp(name)
    with module_home():
        pull_teammates_atom(tmp_path, ann_atoms, *bob)
    return tmp_path


# A Claude Code hook in a test: the installed script, as Claude Code runs it.
HOOK_SCRIPT = str(Path(sys.executable).parent / "memkit-hook")
# What Claude Code (CLAUDE_PROJECT_DIR) or a user's settings.local.json (MEMKIT_REPOS) put in
# a hook's environment; a test runner started inside a Claude Code session has them too. A
# hook's repositories are the test's own: its `cwd` and `repos`, or what `env` sets.
_SESSION_VARS = ("CLAUDE_PROJECT_DIR", "MEMKIT_REPOS")


def run_hook(
    event: str,
    payload: Mapping[str, object] | None,
    cwd: Path,
    *repos: Path,
    engine: bool = False,
    env: Mapping[str, str] | None = None,
    raw: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """`memkit-hook EVENT --repo=R ...` in a fresh process in `cwd`, given `payload` as JSON
    (with `"cwd": cwd` unless it names its own, as Claude Code always sends one) or else `raw`
    text. `engine`: it may ask (and start) the warm engine; otherwise it answers in-process
    (MEMKIT_NO_ENGINE=1). `env`: variables set for it on top. It exits 0, whatever happened:
    any other code would break the user's session (exit 2 blocks their prompt)."""
    environ = {k: v for k, v in os.environ.items() if k not in _SESSION_VARS}
    environ["MEMKIT_NO_ENGINE"] = "0" if engine else "1"
    environ.update(env or {})
    if raw is None:
        raw = json.dumps({"cwd": str(cwd), **(payload or {})})
    result = subprocess.run(
        [HOOK_SCRIPT, event, *(f"--repo={r}" for r in repos)],
        input=raw,
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        check=False,
        # Past the hook's own deadline (conftest: 60 s) on a loaded machine: a hang fails the
        # test instead of holding the run.
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result


def context(result: subprocess.CompletedProcess[str], event: str = "") -> str:
    """The additionalContext a hook gave Claude Code ("" for no answer). With `event` (its
    Claude Code name, `UserPromptSubmit`), an answer is required and must be exactly
    {"hookSpecificOutput": {"hookEventName": event, "additionalContext": ...}}."""
    if not event and not result.stdout.strip():
        return ""
    data = json.loads(result.stdout)
    if event:
        assert set(data) == {"hookSpecificOutput"}, data
        assert set(data["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}, data
        assert data["hookSpecificOutput"]["hookEventName"] == event
    text = data["hookSpecificOutput"]["additionalContext"]
    assert isinstance(text, str) and len(text) <= 10_000  # Claude Code's cap
    return text


# The warm engine (`memkit serve`) in a test: started, waited for, stopped.
def wait_for(predicate: Callable[[], object], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError("timed out")


def start_engine(repo: Path, *args: str) -> subprocess.Popen[bytes]:
    """`memkit serve` for `repo`, once its socket is up and its pid file names it (the engine
    writes that file just after binding: a pid read earlier could be stale and name any
    process of this machine, the test's own worker included)."""
    engine = subprocess.Popen(
        [sys.executable, "-m", "memkit", "serve", *args],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    pid_file = repo / ".memkit/engine.pid"

    def up() -> bool:
        try:
            named = pid_file.read_text(encoding="utf-8").strip()
        except OSError:
            return False
        return (repo / ".memkit/engine.sock").exists() and named == str(engine.pid)

    wait_for(up)
    return engine


@contextlib.contextmanager
def engine_running(repo: Path, *args: str) -> Iterator[subprocess.Popen[bytes]]:
    """`memkit serve` for `repo` while the block runs; stopped (and waited for) after it."""
    engine = start_engine(repo, *args)
    try:
        yield engine
    finally:
        memkit("serve", "--stop", cwd=repo)
        engine.wait(timeout=30)
        engine.communicate()


def generation(repo: Path) -> Path:
    """The live index generation of `repo` (there must be one)."""
    gen = current_generation(repo)
    assert gen is not None
    return gen


def headers_after(
    repo: Path, rounds: range, change: Callable[[Path, int], None]
) -> list[dict[str, Any]]:
    """The live generation's header (`meta.json`) after each round: `change(repo, round)`,
    then a refresh."""
    out = []
    for round_ in rounds:
        change(repo, round_)
        refresh(repo)
        out.append(read_meta(generation(repo)))
    return out


def kill_index_builds(repo: Path) -> None:
    """End the index builds of `repo` a test set off (`memkit index` run with `--repo REPO`
    or inside it): what they check slowly is not that test's subject, and they must not
    outlive it."""
    for proc in Path("/proc").iterdir():
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            where = str((proc / "cwd").readlink())
        except OSError:
            continue
        inside = where == str(repo) or where.startswith(f"{repo}/")
        if b"index" in argv and (str(repo).encode() in argv or inside):
            with contextlib.suppress(OSError):
                os.kill(int(proc.name), signal.SIGKILL)


@contextlib.contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """A fake HTTP service on 127.0.0.1 (a port of its own) for the length of a block: its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextlib.contextmanager
def never_answering(server: socket.socket) -> Iterator[list[socket.socket]]:
    """While the block runs, `server` (bound) takes every connection and answers none: a
    hung engine, a Milvus that never replies. Yields the connections taken so far; closed,
    with them, after the block."""
    server.listen(16)
    server.settimeout(0.1)
    held: list[socket.socket] = []
    stop = threading.Event()

    def take() -> None:
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=take, daemon=True)
    thread.start()
    try:
        yield held
    finally:
        stop.set()
        thread.join(timeout=5)
        for conn in held:
            conn.close()
        server.close()
