"""L1/L2 through a model, against a local fake of each API memkit speaks; and the router's
upper band. Off by default, bounded by a token budget per session and by time."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memkit.capture import queue, worker
from memkit.capture import state as states
from memkit.capture.hooks import worker_needed
from memkit.capture.queue import Proposal
from memkit.capture.settings import load
from memkit.userconfig import USER_ONLY
from tests.fake_models import FakeModels, serve
from tests.helpers import run_hook, user_settings, wait_for

RULE = "From now on we deploy with Argo CD, never by hand."
NOT_A_RULE = "Never mind the deploy, we never finish on time anyway."


def _answer(request: str) -> str:
    """L1: yes (no for NOT_A_RULE); L2: a JSON object."""
    if "yes or no" in request:
        return "no" if "finish on time" in request else "Yes."
    return json.dumps(
        {
            "confidence": 0.93,
            "scope": "shared",
            "type": "decision",
            "triggers": ["argo cd", "deploy"],
            "statement": "Deployments go through Argo CD; nobody deploys by hand.",
        }
    )


_Model = FakeModels(answer_for=_answer)


@pytest.fixture
def fake() -> Iterator[str]:
    _Model.seen.clear()
    _Model.delay = 0.0
    with serve(_Model) as url:
        yield url


def configure(repo: Path, capture: str) -> None:
    """The team turns the model on (memkit.yaml); where it is and which key it gets are the
    user's own settings (`memkit.userconfig`)."""
    team: list[str] = []
    mine: list[str] = []
    for line in capture.splitlines():
        key = line.strip().split(":", 1)[0]
        (mine if key in USER_ONLY[("capture", "model")] else team).append(line)
    text = "version: 1\ncapture:\n" + "\n".join(team) + "\n"
    (repo / "memkit.yaml").write_text(text, encoding="utf-8")
    user_settings("capture:\n  model:\n" + "\n".join(mine) + "\n")


def model(url: str, **extra: object) -> str:
    lines = ["  model:", "    enabled: true", f"    url: {url}", "    model: tiny"]
    lines += [f"    {k}: {v}" for k, v in extra.items()]
    return "\n".join(lines) + "\n"


def offer(
    repo: Path, statement: str, session: str = "s1", score: float = 0.8, *, mine: bool = False
) -> str:
    kind, scope = ("preference", "personal") if mine else ("decision", "shared")
    proposal = Proposal(statement, kind, kind, scope, score, "L0 rules")
    source = {"session": session, "event": "prompt"}
    assert queue.offer(repo, proposal, source, 0.5) == "queued"
    return queue.candidate_id(statement)


def by_id(repo: Path) -> dict[str, queue.Candidate]:
    return {c.id: c for c in [*queue.pending(repo), *queue.settled(repo)]}


def test_off_by_default(memory_repo: Path, fake: str) -> None:
    offer(memory_repo, RULE)
    assert load(memory_repo).model == {}
    assert not worker_needed(memory_repo, load(memory_repo))
    assert worker.run(memory_repo, 5) == {"refined": 0, "dropped": 0, "written": 0}
    assert _Model.seen == []


def test_l1_filters_and_l2_extracts_through_ollama(memory_repo: Path, fake: str) -> None:
    configure(memory_repo, model(fake))
    rule, other = offer(memory_repo, RULE), offer(memory_repo, NOT_A_RULE)
    assert worker_needed(memory_repo, load(memory_repo))
    assert worker.run(memory_repo, 30) == {"refined": 1, "dropped": 1, "written": 0}
    found = by_id(memory_repo)
    assert found[other].status == queue.DROPPED and "L1" in found[other].reason
    refined = found[rule]
    assert refined.status == queue.PENDING_STATUS and refined.level == "L2"
    assert refined.statement == "Deployments go through Argo CD; nobody deploys by hand."
    assert refined.score == 0.93 and refined.triggers == ("argo cd", "deploy")
    assert queue.read_stats(memory_repo) == {"model": 1}
    paths = [p for p, _, _ in _Model.seen]
    assert paths == ["/api/generate"] * 3  # two L1, one L2
    l1_body = _Model.seen[0][2]
    assert l1_body["model"] == "tiny" and l1_body["options"]["temperature"] == 0
    assert _Model.seen[2][2]["format"] == "json"  # L2 asks Ollama for JSON
    # Refined candidates are not sent again.
    assert worker.run(memory_repo, 30)["refined"] == 0 and len(_Model.seen) == 3


def test_openai_compatible_and_anthropic_endpoints(
    memory_repo: Path, fake: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOCAL_LLM_KEY", "sk-local-test")
    configure(memory_repo, model(f"{fake}/v1", provider="openai", api_key_env="LOCAL_LLM_KEY"))
    offer(memory_repo, RULE)
    assert worker.run(memory_repo, 30)["refined"] == 1
    path, headers, body = _Model.seen[0]
    assert path == "/v1/chat/completions" and headers["authorization"] == "Bearer sk-local-test"
    assert "sk-local" not in json.dumps(by_id(memory_repo)[queue.candidate_id(RULE)].as_json())

    _Model.seen.clear()
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    configure(memory_repo, model(fake, provider="anthropic"))
    offer(memory_repo, "Always squash-merge feature branches.", session="s2")
    assert worker.run(memory_repo, 30)["refined"] == 0 and _Model.seen == []  # no key: no model
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ak-test")
    assert worker.run(memory_repo, 30)["refined"] == 1
    path, headers, body = _Model.seen[0]
    assert path == "/v1/messages" and headers["x-api-key"] == "ak-test"
    assert headers["anthropic-version"] == "2023-06-01" and body["max_tokens"] <= 8


def test_the_session_budget_counts_cjk_and_stops_the_model(memory_repo: Path, fake: str) -> None:
    # 32 CJK characters cost ~1.5 tokens each (~49): with 105, one candidate gets L1 and L2
    # (~98), the next none (it would pass the budget).
    configure(memory_repo, model(fake, token_budget=105))
    first = offer(memory_repo, "記住以後部署一律用統一的流程走，不要再手動部署到正式環境裡面去了喔")
    second = offer(
        memory_repo, "以後所有的環境變數都要寫進範例檔案裡面，大家都要遵守這條規定才行喔"
    )
    worker.run(memory_repo, 30)
    found = by_id(memory_repo)
    assert sorted([found[first].level, found[second].level]) == ["L0", "L2"]
    assert len(_Model.seen) == 2
    assert 96 <= states.load(memory_repo, "s1").tokens <= 105
    # Past l1_only_above, L1 runs and L2 does not.
    configure(memory_repo, model(fake, token_budget=240, l1_only_above=10))
    third = offer(memory_repo, "Always run the migrations before the deploy job.", session="s3")
    worker.run(memory_repo, 30)
    refined = by_id(memory_repo)[third]
    assert refined.level == "L1" and refined.why.endswith("L1: yes")


def test_a_slow_model_costs_one_timeout_and_changes_nothing(memory_repo: Path, fake: str) -> None:
    configure(memory_repo, model(fake, timeout=0.3))
    _Model.delay = 2.0
    ids = [offer(memory_repo, RULE), offer(memory_repo, "Always squash-merge feature branches.")]
    start = time.monotonic()
    assert worker.run(memory_repo, 30) == {"refined": 0, "dropped": 0, "written": 0}
    assert time.monotonic() - start < 1.5
    assert len(_Model.seen) == 1  # the first failure ends the asking
    assert all(by_id(memory_repo)[i].level == "L0" for i in ids)


def test_the_upper_band_writes_to_the_user_s_own_folder_only_when_asked(memory_repo: Path) -> None:
    high, middle, team = (
        offer(memory_repo, "I prefer answers without emojis, always.", score=0.95, mine=True),
        offer(memory_repo, "We use pnpm, not npm.", score=0.7),
        offer(memory_repo, RULE, score=0.95),
    )
    assert worker.run(memory_repo, 30)["written"] == 0  # write_personal is off by default
    configure(memory_repo, "  router:\n    upper: 0.9\n    write_personal: true\n")
    assert worker_needed(memory_repo, load(memory_repo))
    assert worker.run(memory_repo, 30)["written"] == 1
    found = by_id(memory_repo)
    assert found[high].status == queue.WRITTEN and found[middle].status == queue.PENDING_STATUS
    # A team decision is the team's: it waits for a person, never lands in personal/ (issue 43).
    assert found[team].status == queue.PENDING_STATUS
    path = memory_repo / found[high].atom["path"]
    assert found[high].atom["path"].startswith("personal/alice-test/") and path.is_file()
    assert "confidence: tentative" in path.read_text(encoding="utf-8")


def test_stop_starts_the_worker_and_never_waits_for_it(memory_repo: Path, fake: str) -> None:
    configure(memory_repo, model(fake))
    _Model.delay = 0.5
    transcript = memory_repo.parent / "s1.jsonl"
    entry = {"type": "user", "message": {"role": "user", "content": RULE}}
    transcript.write_text(json.dumps(entry) + "\n", encoding="utf-8")
    start = time.monotonic()
    run_hook("stop", {"session_id": "s1", "transcript_path": str(transcript)}, memory_repo)
    assert time.monotonic() - start < 5  # the hook did not wait for the model
    cid = queue.candidate_id(RULE)
    wait_for(lambda: by_id(memory_repo)[cid].level == "L2", 30)
    assert by_id(memory_repo)[cid].statement.startswith("Deployments go through Argo CD")
