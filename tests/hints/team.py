"""A three-person team for the hint harness, and how a person follows a printed hint.

alice is management, bob a member (role `programmer`), carol a newcomer (joined, not on the
whitelist); each has a clone of a shared bare origin, joined with `memkit init --join`, and
CI checks pull requests in a clone of its own. Everything is real: git, the hooks through
pre-commit, `memkit ci`.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import (
    atom_text,
    copy_made,
    git,
    join_clone,
    make_memory_repo,
    memkit,
    write_atom,
)

PNPM = atom_text(
    "use-pnpm",
    title="Use pnpm as the package manager",
    type_="decision",
    confidence="fixed",
    body="- Every JavaScript project installs its packages with pnpm 9; never npm or yarn.",
    extra="triggers: [pnpm, package manager]\n",
)
HELM = atom_text(
    "deploy-with-helm",
    title="Deploys go through helm",
    type_="decision",
    confidence="fixed",
    body="- Production deploys use helm charts from the deploy/ folder: `helm upgrade --install`.",
    extra="triggers: [deploy, helm]\n",
)
HEARTBEAT = atom_text(
    "ws-heartbeat-interval",
    title="WebSocket heartbeat",
    type_="pitfall",
    body="- Always send a WebSocket ping every 30 s; the balancer drops idle sockets after 60 s.",
    extra="triggers: [websocket, heartbeat]\n",
)
REDIS_OLD = atom_text(
    "redis-port-6379",
    title="Redis listens on port 6379",
    body="- The cache Redis listens on port 6379; clients connect to port 6379.",
    created="2026-01-10",
    extra="triggers: [redis port]\nstatus: superseded\nsuperseded_by: [redis-port-6380]\n",
)
REDIS_NEW = atom_text(
    "redis-port-6380",
    title="Redis listens on port 6380",
    body="- The cache Redis listens on port 6380 since the February move; clients use 6380.",
    created="2026-02-10",
    extra="triggers: [redis port]\nsupersedes: [redis-port-6379]\n",
)
ARGO = atom_text(
    "deploys-go-through-argo-cd",
    title="Deploys go through Argo CD",
    type_="decision",
    body="We moved deploys from helm to Argo CD: production deploys are Argo CD applications "
    "synced from the deploy/ folder.",
    extra="triggers: [deploy, argo]\n",
)
LINT = atom_text(
    "lint-before-push",
    title="Run the linter before every push",
    type_="procedure",
    body="- Always run `make lint` before `git push`; CI rejects lint errors in 2 minutes.",
)

# A command a hint gives, in backticks: `memkit …`, `git …`.
COMMAND = re.compile(r"`((?:memkit|git) [^`]+)`")
FINDING = re.compile(r"^(?P<path>\S+):\d+:\d+: (?P<code>MK\d{3}) (?P<message>.*)$", re.M)


@dataclass(frozen=True)
class Team:
    root: Path
    origin: Path
    alice: Path  # management
    bob: Path  # a member
    carol: Path  # a newcomer
    ci: Path  # CI's own checkout

    def person(self, role: str) -> Path:
        return {"management": self.alice, "member": self.bob, "newcomer": self.carol}[role]


def commit(repo: Path, message: str = "memory") -> tuple[int, str]:
    """`git add -A && git commit` through the hooks, as a person commits."""
    git(repo, "add", "-A")
    done = git(repo, "commit", "-m", message, check=False)
    return done.returncode, done.stdout + done.stderr


def sneak(repo: Path, message: str) -> None:
    """A commit past the local hooks (`--no-verify`): what only CI still sees."""
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "--no-verify", "-m", message)


def build(tmp_path: Path) -> Team:
    """The team: alice made the memory (two approved decisions, a pitfall, a superseded fact
    and what supersedes it) and listed bob; bob and carol joined and committed their role
    declarations; everyone has pulled; CI has cloned."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "--quiet", "--bare", "--initial-branch=main", str(origin))
    alice = make_memory_repo(tmp_path / "alice")
    for relpath, text in (
        ("shared/use-pnpm.md", PNPM),
        ("shared/deploy-with-helm.md", HELM),
        ("shared/ws-heartbeat-interval.md", HEARTBEAT),
        ("shared/redis-port-6379.md", REDIS_OLD),
        ("shared/redis-port-6380.md", REDIS_NEW),
    ):
        write_atom(alice, relpath, text)
    added = memkit(
        "roles", "add", "bob", "--email", "bob@example.com", "--role", "programmer", cwd=alice
    )
    assert added.returncode == 0, added.stderr
    rc, out = commit(alice, "the team's memory")
    assert rc == 0, out
    git(alice, "remote", "add", "origin", str(origin))
    git(alice, "push", "--quiet", "-u", "origin", "main")
    git(origin, "symbolic-ref", "HEAD", "refs/heads/main")
    for name in ("bob", "carol"):
        clone = tmp_path / name
        join_clone(origin, clone, f"{name}@example.com")
        rc, out = commit(clone, f"role: {name}")
        assert rc == 0, out
        git(clone, "pull", "--quiet")
        git(clone, "push", "--quiet", "origin", "HEAD:main")
    for clone in (alice, tmp_path / "bob"):
        git(clone, "pull", "--quiet")
    git(tmp_path, "clone", "--quiet", str(origin), str(tmp_path / "ci"))
    return Team(tmp_path, origin, alice, tmp_path / "bob", tmp_path / "carol", tmp_path / "ci")


def made_team(
    tmp_path_factory: pytest.TempPathFactory, module_home: Callable[[], Any], name: str
) -> Path:
    made = tmp_path_factory.mktemp(name)
    with module_home():
        build(made)
    return made


def copy_team(made: Path, tmp_path: Path) -> Team:
    root = copy_made(made, tmp_path)
    # The clones' remotes name the origin by its path: copy_made pointed them at the copy.
    return Team(
        root, root / "origin.git", root / "alice", root / "bob", root / "carol", root / "ci"
    )


def run_ci(team: Team, branch: str, actor: str) -> tuple[int, str]:
    """`memkit ci` on the pull request `branch` (pushed to origin) by `actor`, in CI's own
    clone, against origin/main."""
    git(team.ci, "fetch", "--quiet", "origin")
    git(team.ci, "checkout", "--quiet", "--force", f"origin/{branch}")
    done = subprocess.run(
        ["memkit", "ci", "--base", "origin/main", "--actor", actor, "--format", "text"],
        cwd=team.ci,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


@dataclass(frozen=True)
class Hint:
    code: str
    path: str
    message: str
    command: str  # exactly as the message gives it
    by_management: bool  # the message names a management member as the one who runs it


def hints(output: str, code: str) -> list[Hint]:
    """The findings of `code` in `output` that suggest a command, each with the first one it
    suggests (after whatever reason comes before it)."""
    out = []
    for m in FINDING.finditer(output):
        if m["code"] != code:
            continue
        found = COMMAND.search(m["message"])
        if found is None:
            continue
        clause = m["message"][: found.start()].rsplit(";", 1)[-1]
        out.append(
            Hint(code, m["path"], m["message"], found.group(1), "management member" in clause)
        )
    return out


def codes_in(output: str) -> set[tuple[str, str]]:
    """(code, path) of every finding in `output`."""
    return {(m["code"], m["path"]) for m in FINDING.finditer(output)}


def run_command(repo: Path, command: str) -> str:
    """`command` exactly as a hint printed it, run where the person stands."""
    words = shlex.split(command)  # as a shell reads it: `git commit -m 'roles: bob' …`
    if words[0] == "memkit":
        done = memkit(*words[1:], cwd=repo)
    else:
        done = git(repo, *words[1:], check=False)
    assert done.returncode == 0, f"`{command}` was refused:\n{done.stdout}{done.stderr}"
    return done.stdout + done.stderr
