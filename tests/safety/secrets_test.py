"""A secret used as a file name is never printed: pre-commit, every `memkit ci` format, the
audit (issue 21). And secrets the old patterns missed are found."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from memkit.safety.secrets import find_secrets, redact_secrets
from tests.helpers import atom_text, git, make_memory_repo, memkit, write_atom

TOKEN = "xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx"  # noqa: S105  (fake)
NAMED = f"shared/{TOKEN}.md"
REDACTED = "xoxb…(56 chars)"
CI = [sys.executable, "-m", "memkit", "ci", "--base", "main", "--actor", "alice-test"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = make_memory_repo(tmp_path / "team")
    write_atom(
        repo,
        "shared/ws-heartbeat.md",
        atom_text("ws-heartbeat", title="WebSocket heartbeat", extra="triggers: [websocket]\n"),
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base", "--no-verify")
    return repo


def add_named(repo: Path) -> None:
    # Short (a gate warning), close to another atom (the audit pairs them): findings galore.
    write_atom(
        repo,
        NAMED,
        atom_text(
            TOKEN,
            title="WebSocket heartbeat again",
            body="- Send a ping every 30 s; the balancer drops idle sockets after 60 s.",
            extra="triggers: [websocket]\n",
        ),
    )


def test_pre_commit_never_prints_it(repo: Path) -> None:
    add_named(repo)
    git(repo, "add", "-A")
    result = git(repo, "commit", "-m", "named after a token", check=False)
    out = result.stdout + result.stderr
    assert result.returncode != 0  # MK110: a secret in the file name is refused
    assert "MK110" in out and REDACTED in out
    assert TOKEN not in out


@pytest.mark.parametrize("fmt", ["text", "github", "gitlab", "json"])
def test_no_ci_format_prints_it(repo: Path, fmt: str) -> None:
    git(repo, "checkout", "-qb", "feature")
    add_named(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "named after a token", "--no-verify")
    summary = repo.parent / "summary.md"
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary)}
    result = subprocess.run(
        [*CI, "--format", fmt, "--no-evals"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert result.returncode == 1
    printed = result.stdout + result.stderr
    written = "".join(
        p.read_text(encoding="utf-8")
        for p in (summary, repo / "gl-code-quality-report.json")
        if p.exists()
    )
    assert REDACTED in printed + written
    assert TOKEN not in printed + written


def test_the_audit_never_prints_it(repo: Path) -> None:
    add_named(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "named after a token", "--no-verify")
    for args in (("audit", "--all"), ("audit", "--all", "--json"), ("audit", "--from", "HEAD~1")):
        result = memkit(*args, cwd=repo)
        assert TOKEN not in result.stdout + result.stderr, args
        assert REDACTED in result.stdout, args


def test_a_hex_signing_secret_next_to_its_name_is_found() -> None:
    value = secrets.token_hex(20)
    for text in (
        f"Slack signing secret {value}",
        f"the signing secret is `{value}`",
        f"SLACK_SIGNING_SECRET={value}",
        f"webhook token (hex): {value}",
    ):
        assert [hit.kind for hit in find_secrets(text)], text
        assert value not in redact_secrets(text)
    # A commit hash is hex too, and no secret.
    assert not list(find_secrets(f"fixed in commit {value}, see the key changes"))
    assert json.loads(redact_secrets(json.dumps({"path": NAMED}))) == {
        "path": f"shared/{REDACTED}.md"
    }
