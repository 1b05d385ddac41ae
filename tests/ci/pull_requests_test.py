"""`memkit ci` on simulated pull requests: a base branch, head branches, different actors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.helpers import atom_text, git, make_memory_repo, memkit, write_atom

ROOT = Path(__file__).resolve().parents[2]
ROLES = """| user | email | roles |
|------|-------|-------|
| alice-test | alice@example.com | management |
| bob | bob@example.com | art |
"""
HEARTBEAT = "- Always send a WebSocket ping every 30 s; the balancer drops idle sockets at 60 s."


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    # CI checks what reaches the forge, whatever local hooks said: commit without them.
    git(repo, "commit", "--no-verify", "-m", message)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = make_memory_repo(tmp_path / "team")
    (repo / "shared/_roles.md").write_text(ROLES, encoding="utf-8")
    write_atom(
        repo,
        "shared/ws-heartbeat-interval.md",
        atom_text(
            "ws-heartbeat-interval",
            title="WebSocket heartbeat",
            body=HEARTBEAT,
            extra="triggers: [websocket, heartbeat]\n",
        ),
    )
    write_atom(
        repo,
        "evals/queries.yaml",
        "queries:\n  - query: how often should a websocket ping\n"
        "    expect: [ws-heartbeat-interval]\n",
    )
    commit_all(repo, "base")
    git(repo, "checkout", "--quiet", "-b", "feature")
    return repo


def ci(
    repo: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memkit", "ci", "--base", "main", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )


def test_a_good_pull_request_passes(repo: Path) -> None:
    write_atom(
        repo,
        "roles/art/texture-size.md",
        atom_text(
            "texture-size",
            title="Texture size",
            body="- Always export texture atlases as 2048 px PNG files for the mobile build.",
        ),
    )
    commit_all(repo, "good")
    result = ci(repo, "--actor", "bob")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ok" in result.stdout
    assert (
        "| how often should a websocket ping | ws-heartbeat-interval | 1.00 | 1.00 |"
        in result.stdout
    )


def test_roles_use_the_actor_not_the_commit_author(repo: Path) -> None:
    write_atom(
        repo,
        "roles/art/texture-size.md",
        atom_text(
            "texture-size",
            title="Texture size",
            body="- Always export texture atlases as 2048 px PNG files for the mobile build.",
        ),
    )
    commit_all(repo, "by alice, opened by carol")
    result = ci(repo, "--actor", "carol@example.com")
    assert result.returncode == 1
    assert "roles/art/texture-size.md:1:1: MK201" in result.stdout
    missing = ci(repo)
    assert missing.returncode == 2
    assert "--actor is required" in missing.stderr


def test_bad_changes_fail_with_github_annotations_and_summary(repo: Path, tmp_path: Path) -> None:
    write_atom(
        repo, "shared/standup.md", atom_text("standup", title="Standup", body="lol that was fun")
    )
    write_atom(repo, "shared/broken.md", "---\nid: broken\n---\n")
    commit_all(repo, "bad")
    summary = tmp_path / "summary.md"
    env = {
        **__import__("os").environ,
        "GITHUB_ACTIONS": "true",
        "GITHUB_STEP_SUMMARY": str(summary),
    }
    result = ci(repo, "--actor", "bob", env=env)
    assert result.returncode == 1
    assert "::error file=shared/standup.md,line=1,col=1,title=MK101::MK101 quality" in result.stdout
    assert "::error file=shared/broken.md,line=2,col=1,title=MK005::" in result.stdout
    text = summary.read_text(encoding="utf-8")
    assert "❌ memkit: memory checks failed" in text
    assert "| `shared/standup.md` | 1 | MK101 |" in text


def test_a_contradiction_with_the_base_fails(repo: Path) -> None:
    write_atom(
        repo,
        "shared/ws-heartbeat-90s.md",
        atom_text(
            "ws-heartbeat-90s",
            title="WebSocket heartbeat interval",
            body="- Always send a WebSocket heartbeat every 90 s; 30 s floods the gateway.",
            extra="triggers: [websocket, heartbeat]\n",
        ),
    )
    commit_all(repo, "contradiction")
    result = ci(repo, "--actor", "alice-test", "--format", "json")
    assert result.returncode == 1
    data = json.loads(result.stdout)
    codes = {f["code"] for f in data["findings"]}
    assert "MK301" in codes


def test_the_eval_gate_catches_memory_made_unfindable(repo: Path) -> None:
    path = repo / "shared/ws-heartbeat-interval.md"
    path.write_text(
        atom_text(
            "ws-heartbeat-interval",
            title="Load balancer idle limit",
            body="- Idle sockets are dropped by the balancer after 60 s; keep traffic flowing.",
        ),
        encoding="utf-8",
    )
    commit_all(repo, "reword")
    result = ci(repo, "--actor", "alice-test")
    assert result.returncode == 1
    assert "Eval gate failed" in result.stdout
    assert "| 1.00 | 0.00 ⬇ |" in result.stdout


def test_gitlab_code_quality_report(repo: Path) -> None:
    write_atom(
        repo, "shared/standup.md", atom_text("standup", title="Standup", body="lol that was fun")
    )
    commit_all(repo, "bad")
    result = ci(repo, "--actor", "bob", "--format", "gitlab", "--no-evals")
    assert result.returncode == 1
    report = json.loads((repo / "gl-code-quality-report.json").read_text(encoding="utf-8"))
    assert report[0]["check_name"] == "MK101"
    assert report[0]["location"] == {"path": "shared/standup.md", "lines": {"begin": 1}}
    # The template ignores it: CI's report is not something to commit by accident.
    assert git(repo, "status", "--porcelain").stdout == ""


@pytest.mark.parametrize("path", ["ci/github/memkit.yml", "ci/gitlab/memkit.gitlab-ci.yml"])
def test_workflows_are_valid_yaml_and_call_real_commands(path: str, tmp_path: Path) -> None:
    text = (ROOT / path).read_text(encoding="utf-8")
    data = YAML(typ="safe", pure=True).load(text)
    assert isinstance(data, dict)
    assert "memkit ci" in text and "--actor" in text and "--base" in text
    assert "fetch-depth: 0" in text or 'GIT_DEPTH: "0"' in text
    # `memkit` on PyPI is an unrelated project: installing it by that name would run someone
    # else's code in the memory repository's CI.
    commands = "\n".join(ln for ln in text.splitlines() if not ln.strip().startswith("#"))
    assert not re.search(r"pip install +memkit\b", commands)
    assert 'pip install "$MEMKIT_PACKAGE"' in text and "git+https://" in text
    help_text = memkit("ci", "--help", cwd=tmp_path).stdout
    for flag in ("--base", "--actor", "--format", "--gitlab-report"):
        if flag in text:
            assert flag in help_text


def test_a_line_break_in_a_folder_name_forges_no_finding(repo: Path) -> None:
    """Issue 40: a folder named with a line break split one finding into two lines, the
    second a finding of the writer's choosing."""
    folder = "shared/x\nshared/ok.md:1:1: MK000 all good"
    write_atom(repo, f"{folder}/broken.md", "---\nid: broken\n---\n")
    commit_all(repo, "a folder with a line break")
    result = ci(repo, "--actor", "bob", "--no-evals")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert not [line for line in lines if line.startswith("shared/ok.md")], lines
    assert "shared/x\\nshared/ok.md:1:1: MK000 all good/broken.md:2:1: MK005" in result.stdout
