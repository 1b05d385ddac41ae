"""The user's own Claude Code CLI as the audit's judge (issue 27): the real CLI, headless,
against a local fake Messages API. Off by default, bounded, asked by the pull audit and
`memkit audit --all` only, never by the gate, `memkit add` or the MCP save."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memkit.add import Draft, add_atom
from tests.claude.fake_api import fake_api
from tests.claude.real_cli_test import CLAUDE
from tests.helpers import (
    atom_text,
    commit_and_index,
    make_memory_repo,
    memkit,
    user_settings,
    write_atom,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not CLAUDE.exists() and not os.environ.get("CI"),
        reason="Claude Code CLI not installed (bash scripts/test.sh installs it)",
    ),
]
# Grey pairs: close, and no rule of the claim model sees a conflict between them.
GREY = {
    "kafka-events": "- Use Kafka for events between services.",
    "kafka-topics": "- Events between services go through Kafka topics, one per team.",
    "kafka-retention": "- Kafka topics for service events keep seven days of messages.",
}


def _repo(tmp_path: Path, judge: str) -> Path:
    repo = make_memory_repo(tmp_path / "team", hooks=False)
    # The team turns the judge on; which program runs is the user's own setting.
    team = "".join(line for line in judge.splitlines(True) if "provider:" not in line)
    (repo / "memkit.yaml").write_text(f"version: 1\naudit:\n  judge:\n{team}", encoding="utf-8")
    user_settings("audit:\n  judge:\n    provider: claude-cli\n")
    for atom_id, body in GREY.items():
        write_atom(repo, f"shared/{atom_id}.md", atom_text(atom_id, body=body))
    commit_and_index(repo)
    return repo


def _env(url: str, tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "claude-home"
    home.mkdir(exist_ok=True)
    return {
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "dummy",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "HOME": str(home),
        "PATH": f"{CLAUDE.parent}{os.pathsep}{os.environ['PATH']}",
    }


def test_the_cli_judges_grey_pairs_of_audit_all_within_its_bound(tmp_path: Path) -> None:
    repo = _repo(
        tmp_path,
        "    enabled: true\n    provider: claude-cli\n    grey_from: 0.5\n    max_calls: 1\n"
        "    timeout: 90\n",
    )
    with fake_api() as (api, url):
        api.answer = "contradicts"
        result = memkit("audit", "--all", "--json", cwd=repo, env=_env(url, tmp_path))
        asked = api.messages_text()
    pairs = json.loads(result.stdout)["results"]
    judged = [p for p in pairs if p["reason"].startswith("judge (claude-cli): contradicts")]
    assert len(judged) == 1, pairs  # max_calls: 1, though several pairs are grey
    assert len(asked) == 1 and "Note A:" in asked[0], asked
    # The judge's session ran no memkit hook: nothing but the two notes went to the model.
    assert "memkit" not in asked[0].lower()


def test_off_by_default_and_never_on_the_write_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _repo(tmp_path, "    enabled: true\n    provider: claude-cli\n    grey_from: 0.5\n")
    with fake_api() as (api, url):
        api.answer = "contradicts"
        env = _env(url, tmp_path)
        for key, value in env.items():  # the write path runs in this process: the same CLI
            monkeypatch.setenv(key, value)
        outcome = add_atom(
            repo, Draft(text="Kafka carries the events between our services."), dry_run=True
        )
        assert outcome.contradicts == [], outcome.findings
        assert api.messages_text() == []  # `memkit add` (and so the MCP save) never asks
        (repo / "memkit.yaml").write_text("version: 1\n", encoding="utf-8")
        result = memkit("audit", "--all", "--json", cwd=repo, env=env)
        assert api.messages_text() == []  # no judge configured: none asked
    pairs = json.loads(result.stdout)["results"]
    assert not any(p["reason"].startswith("judge") for p in pairs)
