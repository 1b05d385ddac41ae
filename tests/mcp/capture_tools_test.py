"""The MCP server's capture tools, `candidates` and `accept`, over stdio with the SDK's client."""

from __future__ import annotations

from pathlib import Path

from mcp import Client

from memkit.capture import queue
from memkit.capture.queue import Proposal
from tests.helpers import git, make_memory_repo, memkit
from tests.mcp.server_test import call, drive

RULE = "From now on we deploy with Argo CD, never by hand."
JUNK = "No, it's that."


def offer(repo: Path, statement: str, kind: str = "decision") -> str:
    proposal = Proposal(statement, kind, "decision", "shared", 0.8, "test", ("argo cd",))
    assert queue.offer(repo, proposal, {"session": "s1", "event": "prompt"}, 0.5) == "queued"
    return queue.candidate_id(statement)


def test_the_agent_lists_and_accepts_candidates(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team")
    rule, junk = offer(repo, RULE), offer(repo, JUNK, "correction")

    async def body(client: Client) -> None:
        error, text = await call(client, "candidates")
        assert not error, text
        assert f"- {rule} · 0.80 · decision · shared · {RULE}" in text and junk in text
        error, text = await call(client, "accept", id=rule)
        assert not error, text
        assert text.startswith("saved shared/deploy-with-argo-cd") and "not staged" in text
        # A refused one keeps waiting, with the findings the model can act on.
        error, text = await call(client, "accept", id=junk)
        assert error and "refused: nothing was written" in text and "MK101" in text
        error, text = await call(client, "accept", id=rule)
        assert error and "already accepted" in text
        error, text = await call(client, "accept", id="nothing")
        assert error and "no capture candidate `nothing`" in text
        error, text = await call(client, "search", query="how do we deploy argo cd")
        assert "deploy-with-argo-cd" in text  # indexed at once
        error, text = await call(client, "candidates")
        assert rule not in text and junk in text

    drive(repo, body, tmp_path)
    (cand,) = [c for c in queue.settled(repo) if c.id == rule]
    assert cand.status == queue.ACCEPTED
    path = cand.atom["path"]
    assert memkit("validate", path, cwd=repo).returncode == 0
    assert git(repo, "status", "--porcelain", "--", path).stdout.startswith("??")
    assert [c.id for c in queue.pending(repo)] == [junk]
