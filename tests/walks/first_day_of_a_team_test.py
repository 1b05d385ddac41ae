"""The first day of a team, as a new user meets it: identity only in environment variables (as
in containers and CI), the README's commands, real git, real pre-commit hooks, no manual edit.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import git

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def person(name: str, email: str) -> dict[str, str]:
    """The environment of someone whose git identity lives only in environment variables."""
    env = dict(os.environ)
    for var in ("AUTHOR", "COMMITTER"):
        env[f"GIT_{var}_NAME"] = name
        env[f"GIT_{var}_EMAIL"] = email
    return env


@pytest.fixture
def no_git_config_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "gitconfig-without-user"
    config.write_text("[init]\n\tdefaultBranch = main\n", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    for var in ("NAME", "EMAIL"):
        for who in ("AUTHOR", "COMMITTER"):
            monkeypatch.delenv(f"GIT_{who}_{var}", raising=False)
    monkeypatch.delenv("EMAIL", raising=False)


def run(
    args: list[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def mk(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return run([sys.executable, "-m", "memkit", *args], cwd, env)


def sh(script: str, cwd: Path, env: dict[str, str]) -> str:
    """A README block, run as a user would paste it (stops at the first failing command)."""
    result = run(["bash", "-euc", script], cwd, env)
    assert result.returncode == 0, f"{script}\n---\n{result.stdout}{result.stderr}"
    return result.stdout + result.stderr


def readme_block(first_line: str) -> str:
    """The README's ```sh block that starts with `first_line`."""
    for block in re.findall(r"```sh\n(.*?)```", README, flags=re.S):
        if block.startswith(first_line):
            return str(block)
    raise AssertionError(f"no ```sh block starting with {first_line!r} in README.md")


@pytest.mark.usefixtures("no_git_config_identity")
def test_init_without_any_identity_stops_and_says_how_to_set_one(tmp_path: Path) -> None:
    result = mk("init", "team", cwd=tmp_path)
    assert result.returncode == 1
    assert "git config --global user.email" in result.stderr
    assert "GIT_AUTHOR_EMAIL" in result.stderr
    assert not (tmp_path / "team").exists()


@pytest.mark.usefixtures("no_git_config_identity")
def test_init_takes_the_identity_git_commits_with(tmp_path: Path) -> None:
    alice = person("Alice Liddell", "alice@example.com")
    result = mk("init", "nested/../team", cwd=tmp_path, env=alice)
    assert result.returncode == 0, result.stdout + result.stderr
    repo = tmp_path / "team"
    # Printed normalised, not as typed.
    assert f"made a memory repository at {repo}\n" in result.stdout
    roles = (repo / "shared/_roles.md").read_text(encoding="utf-8")
    assert "| alice-liddell | alice@example.com | management |" in roles
    assert "your-name" not in roles and "you@example.com" not in roles
    declared = (repo / "personal/alice-liddell/role.md").read_text(encoding="utf-8")
    assert "roles: [management]" in declared
    # The first commit is made, by that identity, and leaves nothing behind.
    assert git(repo, "log", "--format=%an <%ae>|%s").stdout == (
        "Alice Liddell <alice@example.com>|memkit init: new memory repository\n"
    )
    assert git(repo, "status", "--porcelain").stdout == ""
    whoami = mk("roles", "whoami", cwd=repo, env=alice).stdout
    assert "user: alice-liddell" in whoami and "management: yes" in whoami
    doctor = mk("doctor", cwd=repo, env=alice)
    assert doctor.returncode == 0, doctor.stdout
    assert "identity: alice-liddell <alice@example.com>, roles: management" in doctor.stdout


@pytest.mark.slow
@pytest.mark.usefixtures("no_git_config_identity")
def test_the_readme_flow_for_a_team(tmp_path: Path) -> None:
    alice = person("Alice", "alice@example.com")
    bob = person("Bob", "bob@example.com")
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "--quiet", "--bare", str(remote))
    url = str(remote)

    # Alice: the README's first command makes a committed repository.
    init = re.search(r"memkit init \.\./team-memory", README)
    assert init is not None
    work = tmp_path / "work"
    work.mkdir()
    result = mk("init", "../team-memory", cwd=work, env=alice)
    assert result.returncode == 0, result.stdout + result.stderr
    repo = tmp_path / "team-memory"
    assert git(repo, "log", "--format=%s").stdout.strip() == "memkit init: new memory repository"

    # Her first atom, committed through the hooks, then pushed where the team can reach it.
    out = sh(readme_block("cd ../team-memory"), work, alice)
    assert "memkit validate" in out and "memkit roles" in out
    assert "Failed" not in out
    sh(readme_block("git remote add origin").replace("<url>", url), repo, alice)

    # Bob joins: hooks, index, his own declaration, committed at once (before anyone has
    # listed him); `memkit doctor` is happy at once.
    (tmp_path / "bob").mkdir()
    joined = sh(readme_block("git clone").replace("<url>", url), tmp_path / "bob", bob)
    clone = tmp_path / "bob" / "team-memory"
    assert "not in shared/_roles.md yet" in joined
    assert git(clone, "log", "-1", "--format=%s").stdout.strip() == "role: bob"
    doctor = mk("doctor", cwd=clone, env=bob)
    assert doctor.returncode == 0, doctor.stdout
    assert "index: 1 atoms, current" in doctor.stdout
    searched = mk("search", "websocket heartbeat", cwd=clone, env=bob)
    assert "ws-heartbeat-interval" in searched.stdout

    # Alice adds Bob with one command and pushes; nobody edits shared/_roles.md by hand.
    sh(readme_block("memkit roles add bob"), repo, alice)
    assert git(repo, "status", "--porcelain").stdout == ""
    sh(
        "cat > shared/ws-reconnect-backoff.md <<'ATOM'\n---\nid: ws-reconnect-backoff\n"
        "type: procedure\nconfidence: observed\ncreated: 2026-02-09\n"
        "triggers: [websocket, reconnect]\nrelated: [ws-heartbeat-interval]\n---\n"
        "# Reconnect WebSockets with exponential backoff\n\n"
        "- After a dropped connection, retry after 1 s, 2 s, 4 s, up to 60 s; never in a "
        "tight loop.\nATOM\n"
        "git add -A && git commit -m 'memory: reconnect backoff' && git push",
        repo,
        alice,
    )

    # Bob pulls, though his own commit came first (issue 41: git's "Need to specify how to
    # reconcile divergent branches" stopped this pull): his declaration goes on top, the
    # audit looks at what came in, the index follows; he pushes, then commits an atom for
    # his new role, through the hooks.
    pulled = sh(readme_block("git pull"), clone, bob)
    assert "memkit audit" in pulled and "memkit index" in pulled
    assert git(clone, "log", "--format=%s", "-3").stdout.split("\n")[:3] == [
        "role: bob",
        "memory: reconnect backoff",
        "roles: bob",
    ]
    assert git(remote, "log", "-1", "--format=%s").stdout.strip() == "role: bob"
    listed = mk("roles", "whoami", cwd=clone, env=bob).stdout
    assert "roles: programmer" in listed
    assert "ws-reconnect-backoff" in mk("search", "reconnect backoff", cwd=clone, env=bob).stdout
    sh(
        "mkdir -p roles/programmer && cat > roles/programmer/lint-before-push.md <<'ATOM'\n"
        "---\nid: lint-before-push\ntype: procedure\nconfidence: observed\n"
        "created: 2026-02-10\n---\n# Run the linter before every push\n\n"
        "- Always run `make lint` before `git push`; CI rejects lint errors in 2 minutes.\n"
        "ATOM\ngit add -A && git commit -m 'memory: lint' && git push",
        clone,
        bob,
    )
    assert git(remote, "log", "-1", "--format=%an|%s").stdout == "Bob|memory: lint\n"
