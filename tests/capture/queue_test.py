"""`memkit candidates` and `memkit undo`: a person's decisions on what capture found, through
the checks of `memkit add` and the repository's real commit hooks."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from memkit.capture import queue
from memkit.capture.queue import Proposal
from tests.helpers import git, make_memory_repo, memkit

RULE = "From now on we deploy with Argo CD, never by hand."


def offer(repo: Path, statement: str, *, kind: str = "decision", score: float = 0.8) -> str:
    atom_type = {"preference": "preference", "pitfall": "pitfall"}.get(kind, "decision")
    proposal = Proposal(statement, kind, atom_type, "shared", score, "a test", ("argo cd",))
    assert queue.offer(repo, proposal, {"session": "s1", "event": "prompt"}, 0.5) == "queued"
    return queue.candidate_id(statement)


def run(repo: Path, *args: str, email: str | None = None) -> subprocess.CompletedProcess[str]:
    who = {"GIT_AUTHOR_EMAIL": email, "GIT_COMMITTER_EMAIL": email} if email else None
    return memkit(*args, cwd=repo, env=who)


def test_accepting_writes_an_atom_that_passes_the_commit_hooks(memory_repo: Path) -> None:
    cid = offer(memory_repo, RULE)
    listed = run(memory_repo, "candidates")
    assert (
        listed.returncode == 0
        and f"{cid}  0.80  decision" in listed.stdout
        and RULE in listed.stdout
    )
    data = json.loads(run(memory_repo, "candidates", "list", "--json").stdout)
    assert [c["id"] for c in data["candidates"]] == [cid]

    done = run(memory_repo, "candidates", "accept", cid)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "wrote shared/deploy-with-argo-cd-never-by-hand.md" in done.stdout
    assert "memkit undo deploy-with-argo-cd-never-by-hand" in done.stdout
    rel = "shared/deploy-with-argo-cd-never-by-hand.md"
    text = (memory_repo / rel).read_text(encoding="utf-8")
    assert "type: decision" in text and "author: alice@example.com" in text and RULE in text
    assert 'triggers: ["argo cd", "deploy"]' in text
    git(memory_repo, "add", rel)
    commit = git(memory_repo, "commit", "-m", "memory: argo cd", check=False)
    assert commit.returncode == 0, commit.stdout + commit.stderr
    # Settled: listed with --all, not offered again, not accepted twice.
    assert cid not in run(memory_repo, "candidates").stdout
    assert f"{cid}  accepted -> {rel}" in run(memory_repo, "candidates", "list", "--all").stdout
    again = run(memory_repo, "candidates", "accept", cid)
    assert again.returncode == 1 and "already accepted" in again.stderr
    source = {"session": "s9", "event": "prompt"}
    proposal = Proposal(RULE, "decision", "decision", "shared", 0.9, "again")
    assert queue.offer(memory_repo, proposal, source, 0.5) == "known"

    # Taken back: the committed file goes, the reason stays.
    undone = run(
        memory_repo,
        "undo",
        "deploy-with-argo-cd-never-by-hand",
        "--reason",
        "we use Flux",
    )
    assert undone.returncode == 0, undone.stderr
    assert f"removed {rel}" in undone.stdout and "commit its removal" in undone.stdout
    assert not (memory_repo / rel).exists()
    assert "(we use Flux)" in run(memory_repo, "candidates", "list", "--all").stdout
    assert run(memory_repo, "undo", cid).returncode == 1  # nothing left to take back
    assert "neither a capture candidate" in run(memory_repo, "undo", "ws-unknown").stderr
    git(memory_repo, "commit", "-qam", "memory: undo argo cd")


def test_a_decision_from_outside_management_waits_for_review(memory_repo: Path) -> None:
    cid = offer(memory_repo, "We decided that every service exposes /healthz on port 8081.")
    done = run(memory_repo, "candidates", "accept", cid, email="bob@example.com")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "shared/_pending/" in done.stdout and "memkit review approve" in done.stdout


def test_scope_type_and_text_can_be_changed_and_a_refusal_keeps_it_waiting(
    memory_repo: Path,
) -> None:
    cid = offer(
        memory_repo, "I prefer tabs in every Makefile of the build tooling.", kind="preference"
    )
    done = run(
        memory_repo, "candidates", "accept", cid, "--scope", "personal", "--type", "preference"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "wrote personal/alice-test/" in done.stdout
    junk = offer(memory_repo, "No, it's that.", kind="correction")
    refused = run(memory_repo, "candidates", "accept", junk)
    assert refused.returncode == 1 and "MK101" in refused.stdout and "still waits" in refused.stdout
    assert junk in run(memory_repo, "candidates").stdout
    fixed = run(
        memory_repo,
        "candidates",
        "accept",
        junk,
        "--text",
        "The payments service listens on port 8443 in production; see deploy/values.yaml.",
        "--type",
        "fact",
    )
    assert fixed.returncode == 0, fixed.stdout
    rejected = offer(memory_repo, "Always name queues after their consumer service.")
    assert (
        run(memory_repo, "candidates", "reject", rejected, "--reason", "not ours").returncode == 0
    )
    assert rejected not in run(memory_repo, "candidates").stdout


def test_undo_keeps_a_file_edited_since_unless_forced(memory_repo: Path) -> None:
    cid = offer(memory_repo, "Always pin the Helm chart version in deploy/helmfile.yaml.")
    done = run(memory_repo, "candidates", "accept", cid)
    assert done.returncode == 0, done.stdout
    (cand,) = [c for c in queue.settled(memory_repo) if c.id == cid]
    path = memory_repo / cand.atom["path"]
    path.write_text(path.read_text(encoding="utf-8") + "- Edited by hand.\n", encoding="utf-8")
    kept = run(memory_repo, "undo", cid)
    assert kept.returncode == 1 and "was edited since" in kept.stderr and path.exists()
    gone = run(memory_repo, "undo", cid, "--force", "--reason", "duplicate")
    assert gone.returncode == 0 and not path.exists()
    assert "duplicate" in gone.stdout


def test_an_unknown_candidate_is_a_clear_error(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team", hooks=False)
    for args in (("candidates", "accept", "deadbeef"), ("candidates", "reject", "x")):
        result = memkit(*args, cwd=repo)
        assert result.returncode == 1 and "no capture candidate" in result.stderr
    assert "no candidates wait" in memkit("candidates", cwd=repo).stdout


@pytest.mark.parametrize(
    ("statement", "question"),
    [
        (
            "From now on we write database migrations with alembic, never by hand.",
            "Add a created_at column to the users table and write the alembic migration",
        ),
        ("以後部署一律用 Argo CD，不要手動部署。", "部署流程是什麼？"),
    ],
)
def test_an_accepted_candidate_is_found_by_a_plain_question(
    memory_repo: Path, statement: str, question: str
) -> None:
    from tests.helpers import context, run_hook

    proposal = Proposal(statement, "decision", "decision", "shared", 0.8, "a test")
    assert queue.offer(memory_repo, proposal, {"session": "s1", "event": "prompt"}, 0.5) == "queued"
    done = run(memory_repo, "candidates", "accept", queue.candidate_id(statement))
    assert done.returncode == 0, done.stdout + done.stderr
    written = re.search(r"wrote (\S+?)[:;]", done.stdout).group(1)  # type: ignore[union-attr]
    atom_id = Path(written).stem
    assert "triggers: [" in (memory_repo / written).read_text(encoding="utf-8")
    answer = context(
        run_hook("user-prompt-submit", {"session_id": "q1", "prompt": question}, memory_repo)
    )
    assert f"## {atom_id} · decision" in answer
