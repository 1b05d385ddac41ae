"""The optional judge against a local fake of each API it speaks: Ollama, an OpenAI-compatible
chat endpoint and the Anthropic Messages API. Off by default, bounded, never required."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memkit.audit.classify import CONTRADICTS, EXTENDS, Verdict
from memkit.audit.judge import Judge
from tests.fake_models import FakeModels, serve
from tests.helpers import (
    atom_text,
    commit_and_index,
    make_memory_repo,
    memkit,
    user_settings,
    write_atom,
)

GREY = Verdict(EXTENDS, "same subject")


_FakeModels = FakeModels(reply="contradicts")  # answers like each API; records what it was sent


@pytest.fixture
def fake() -> Iterator[str]:
    _FakeModels.seen.clear()
    with serve(_FakeModels) as url:
        yield url


def judge(**config: Any) -> Judge:
    found = Judge.from_config({"judge": {"enabled": True, "model": "m", **config}})
    assert isinstance(found, Judge)
    return found


def test_ollama(fake: str) -> None:
    assert judge(url=fake).settle("a", "b", GREY).kind == CONTRADICTS
    path, _, body = _FakeModels.seen[0]
    assert path == "/api/generate" and body["model"] == "m" and body["stream"] is False


def test_openai_compatible(fake: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOCAL_LLM_KEY", "sk-test-123")
    j = judge(provider="openai", url=f"{fake}/v1", api_key_env="LOCAL_LLM_KEY")
    verdict = j.settle("Use Kafka.", "Never use Kafka.", GREY)
    assert verdict.kind == CONTRADICTS and verdict.reason.startswith("judge (m): contradicts")
    path, headers, body = _FakeModels.seen[0]
    assert path == "/v1/chat/completions"
    assert headers["authorization"] == "Bearer sk-test-123"
    assert body["messages"][0]["role"] == "user" and "Never use Kafka." in str(body)
    assert "sk-test" not in repr(j)  # the key never shows in logs or reprs


def test_anthropic_messages(fake: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert (
        Judge.from_config({"judge": {"enabled": True, "provider": "anthropic", "model": "m"}})
        is None
    )
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ak-test")
    assert judge(provider="anthropic", url=fake).settle("a", "b", GREY).kind == CONTRADICTS
    path, headers, body = _FakeModels.seen[0]
    assert path == "/v1/messages"
    assert headers["x-api-key"] == "ak-test" and headers["anthropic-version"] == "2023-06-01"
    assert body["max_tokens"] <= 16


def test_bounded_and_never_required(fake: str) -> None:
    assert Judge.from_config({}) is None  # off by default
    j = judge(url=fake, max_calls=2)
    for _ in range(5):
        j.settle("a", "b", GREY)
    assert len(_FakeModels.seen) == 2
    _FakeModels.reply = "I cannot tell"
    try:
        assert judge(url=fake).settle("a", "b", GREY) == GREY  # nonsense keeps the heuristic
    finally:
        _FakeModels.reply = "contradicts"
    dead = Judge("http://127.0.0.1:9", "m", timeout=0.5)
    assert dead.settle("a", "b", GREY) == GREY
    assert dead.broken  # no further calls this run


def test_the_audit_asks_the_judge_about_grey_pairs(fake: str, tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team", hooks=False)
    (repo / "memkit.yaml").write_text(
        "version: 1\naudit:\n  judge:\n    enabled: true\n    model: m\n    grey_from: 0.5\n",
        encoding="utf-8",
    )
    # Where the judge is, and so where a key would go: the user's own settings.
    user_settings(f"audit:\n  judge:\n    provider: openai\n    url: {fake}/v1\n")
    write_atom(
        repo, "shared/kafka-events.md", atom_text("kafka-events", body="- Use Kafka for events.")
    )
    write_atom(
        repo,
        "shared/kafka-topics.md",
        atom_text("kafka-topics", body="- Events go through Kafka topics, one per team."),
    )
    commit_and_index(repo)
    result = memkit("audit", "--all", "--json", cwd=repo)
    pairs = json.loads(result.stdout)["results"]
    assert any(p["reason"].startswith("judge (m): contradicts") for p in pairs), pairs
    assert _FakeModels.seen and _FakeModels.seen[0][0] == "/v1/chat/completions"
