"""Capture's precision on what real sessions say (issue 43), through the hooks Claude Code runs
and real git: an incident report is no pitfall, a question without its "?" no decision, a
correction and a preference in one prompt are two candidates, an accepted root cause is not
served for every prompt that names where it happened, an accepted pitfall is as confident as
`memkit add --type pitfall` makes it, and a session's summary decides nothing it only learned."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.helpers import (
    atom_text,
    commit_and_index,
    context,
    make_memory_repo,
    memkit,
    run_hook,
    write_atom,
)


def candidates(repo: Path) -> list[dict[str, Any]]:
    listed = memkit("candidates", "list", "--json", cwd=repo)
    assert listed.returncode == 0, listed.stderr
    found: list[dict[str, Any]] = json.loads(listed.stdout)["candidates"]
    return found


def prompt(repo: Path, session: str, text: str) -> str:
    return context(run_hook("user-prompt-submit", {"session_id": session, "prompt": text}, repo))


def test_what_a_prompt_reports_or_asks_is_no_candidate_and_two_kinds_are_two(
    tmp_path: Path,
) -> None:
    repo = make_memory_repo(tmp_path / "team")
    prompt(repo, "s1", "The Stripe invoice.paid webhook handler charged a customer twice.")
    prompt(repo, "s1", "so how do we deploy to production")
    prompt(repo, "s1", "昨晚 Stripe 的 invoice.paid webhook 重複扣了一位客戶兩次款。")
    assert candidates(repo) == []
    said = "No, the staging database is Postgres 15, not 14. Also I prefer short answers."
    prompt(repo, "s2", said)
    found = {(c["type"], c["scope"]): c["statement"] for c in candidates(repo)}
    assert found == {
        ("fact", "shared"): "No, the staging database is Postgres 15, not 14.",
        ("preference", "personal"): "I prefer short answers.",
    }


ROOT_CAUSE = (
    "The root cause was that the deploy to staging created a second cron job, so the nightly "
    "invoice export ran twice."
)


def test_an_accepted_root_cause_is_observed_and_not_served_to_every_deploy_question(
    tmp_path: Path,
) -> None:
    repo = make_memory_repo(tmp_path / "team")
    argo = atom_text(
        "deploy-with-argo-cd",
        title="We deploy with Argo CD",
        body="- From now on we deploy with Argo CD, never by hand.",
        type_="decision",
        extra="triggers: [deploy, argo cd]\n",
    )
    write_atom(repo, "shared/deploy-with-argo-cd.md", argo)
    commit_and_index(repo)
    transcript = tmp_path / "s1.jsonl"
    lines = [
        {"type": "user", "message": {"role": "user", "content": "Why did the export run twice?"}},
        {
            "type": "assistant",
            "message": {"role": "assistant", "content": [{"type": "text", "text": ROOT_CAUSE}]},
        },
    ]
    transcript.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    payload = {"session_id": "s1", "transcript_path": str(transcript), "reason": "other"}
    run_hook("session-end", payload, repo)
    (cand,) = candidates(repo)
    assert cand["type"] == "pitfall" and cand["statement"] == ROOT_CAUSE
    summary = next((repo / ".memkit/episodic").glob("session-*.md")).read_text(encoding="utf-8")
    assert "## Decided" not in summary and cand["id"] in summary.split("## Learned")[1]

    accepted = memkit("candidates", "accept", cand["id"], cwd=repo)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    (written,) = re.findall(r"^wrote (shared/\S+\.md)", accepted.stdout, re.M)
    path = repo / written
    text = path.read_text(encoding="utf-8")
    assert "confidence: observed" in text  # as `memkit add --type pitfall` writes it
    listed = re.search(r"^triggers: \[(.*)\]$", text, re.M)
    triggers = {t.strip("'\"") for t in listed.group(1).split(", ")} if listed else set()
    assert not {"created", "deploy", "staging"} & triggers
    answer = prompt(repo, "s2", "how do we deploy to production")
    assert "## deploy-with-argo-cd" in answer and path.stem not in answer
    assert path.stem in prompt(repo, "s3", "why did the nightly invoice export run twice?")
