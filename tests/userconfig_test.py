"""Where a teammate's credentials go and what runs on their machine are their own settings
(`memkit.userconfig`), never memkit.yaml's alone: a pull of a memkit.yaml that names a URL,
an environment variable to send or a program sends nothing and runs nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memkit.userconfig import overlay, path
from tests.fake_models import FakeModels, serve
from tests.helpers import atom_text, git, join_clone, make_memory_repo, memkit, user_settings

GREY = {
    "kafka-events": "- Use Kafka for events between services.",
    "kafka-topics": "- Events between services go through Kafka topics, one per team.",
}
NEW = ("kafka-retention", "- Kafka topics for service events keep seven days of messages.")
SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"  # noqa: S105  (a fake, for the test)


def team_pull(tmp_path: Path, judge: str) -> tuple[Path, str]:
    """Bob's clone pulls a memkit.yaml with `judge` (the lines under `audit: judge:`) and an
    atom the pull audit compares with his; returns his clone and what the pull printed."""
    alice = make_memory_repo(tmp_path / "alice")
    for atom_id, body in GREY.items():
        (alice / f"shared/{atom_id}.md").write_text(atom_text(atom_id, body=body))
    git(alice, "add", "-A")
    git(alice, "commit", "-q", "--no-verify", "-m", "kafka")
    bob = tmp_path / "bob"
    join_clone(alice, bob, "bob@example.com")
    with (alice / "memkit.yaml").open("a", encoding="utf-8") as fh:
        fh.write(f"audit:\n  judge:\n{judge}")
    (alice / f"shared/{NEW[0]}.md").write_text(atom_text(NEW[0], body=NEW[1]))
    git(alice, "add", "-A")
    git(alice, "commit", "-q", "--no-verify", "-m", "a judge for everyone")
    pulled = git(bob, "pull", "--no-rebase", check=False)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    return bob, pulled.stdout + pulled.stderr


def test_a_pulled_memkit_yaml_never_sends_a_key_where_it_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    models = FakeModels(reply="contradicts")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    with serve(models) as url:
        judge = (
            "    enabled: true\n    provider: openai\n    model: m\n    grey_from: 0.5\n"
            f"    url: {url}/v1\n    api_key_env: AWS_SECRET_ACCESS_KEY\n"
        )
        bob, printed = team_pull(tmp_path, judge)
        assert models.seen == []  # nothing sent at all, the key least of all
        assert "memkit.yaml sets audit.judge.url" in printed
        assert "memkit.yaml sets audit.judge.api_key_env" in printed
        assert SECRET not in printed

        # The user's own settings say where their judge is, and which key it gets.
        monkeypatch.setenv("LOCAL_LLM_KEY", "sk-mine-123")
        user_settings(
            f"audit:\n  judge:\n    provider: openai\n    url: {url}/v1\n"
            "    api_key_env: LOCAL_LLM_KEY\n"
        )
        result = memkit("audit", "--all", "--json", cwd=bob)
        assert result.returncode in (0, 1), result.stderr
    assert models.seen, result.stdout + result.stderr
    assert {h["authorization"] for _, h, _ in models.seen} == {"Bearer sk-mine-123"}
    pairs = json.loads(result.stdout)["results"]
    assert any(p["reason"].startswith("judge (m)") for p in pairs), pairs


def test_a_pulled_memkit_yaml_never_runs_a_program(tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    program = tmp_path / "judge.sh"
    program.write_text(f'#!/bin/sh\ntouch {ran}\necho \'{{"result": "contradicts"}}\'\n')
    program.chmod(0o755)
    judge = f"    enabled: true\n    provider: claude-cli\n    command: {program}\n"
    _, printed = team_pull(tmp_path, judge + "    grey_from: 0.5\n")
    assert not ran.exists()
    assert "memkit.yaml sets audit.judge.command" in printed


def test_the_users_own_value_is_the_confirmation() -> None:
    team = {"audit": {"judge": {"enabled": True, "url": "http://a", "model": "m"}}}
    assert overlay(team, {}) == {"audit": {"judge": {"enabled": True, "model": "m"}}}
    mine = {"audit": {"judge": {"url": "http://a"}}}
    assert overlay(team, mine)["audit"]["judge"] == {
        "enabled": True,
        "model": "m",
        "url": "http://a",
    }
    team = {"capture": {"model": {"enabled": True, "provider": "anthropic"}}}
    assert overlay(team, {})["capture"]["model"] == {"enabled": True}


def test_settings_another_user_can_write_are_not_used() -> None:
    user_settings("audit:\n  judge:\n    url: http://127.0.0.1:9/v1\n")
    team = {"audit": {"judge": {"enabled": True}}}
    assert overlay(team)["audit"]["judge"] == {"enabled": True, "url": "http://127.0.0.1:9/v1"}
    os.chmod(path(), 0o666)  # noqa: PTH101, S103  (the hole under test)
    assert overlay(team)["audit"]["judge"] == {"enabled": True}
