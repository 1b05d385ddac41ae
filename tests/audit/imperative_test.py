"""Contradictions in imperative procedures, at the three moments: Ann's procedure says to roll
back payments with `helm rollback`; Bob's later atom says never with it. The pull audit reports
the pair, pre-commit and `memkit add` of Bob's atom in Ann's clone flag it, and when both are
injected into one prompt (cold hook and warm engine) one line says they disagree."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import (
    atom_text,
    copy_made,
    engine_running,
    git,
    made_pull,
    make_memory_repo,
    memkit,
    run_hook,
    write_atom,
)

ANN_TEXT = (
    "Deploy payments with Argo CD from the release branch; roll back payments with "
    "'helm rollback payments' within ten minutes if its error rate doubles."
)
BOB_TEXT = (
    "Roll back payments with Argo CD's UI history, never with helm rollback: helm rollback "
    "payments breaks the Argo sync."
)
ANN = atom_text(
    "deploying-the-payments-service",
    title="Deploying the payments service",
    body=f"- {ANN_TEXT}",
    type_="procedure",
)
BOB = atom_text(
    "payments-rollback-new",
    title="Rolling back payments",
    body=f"- {BOB_TEXT}",
    type_="procedure",
)
# Other steps of the same memory (the last test takes them away again).
OTHERS = {
    "frontend-dependencies": "Install frontend dependencies with pnpm.",
    "staging-certificates": "Rotate the staging TLS certificates with cert-manager.",
    "on-call-handover": "Hand over the on-call pager on Mondays at 10:00.",
}
OTHER_ATOMS = {f"shared/{i}.md": atom_text(i, body=f"- {t}") for i, t in OTHERS.items()}
BOB_PATH = "shared/payments-rollback-new.md"
BOB_ENV = {"GIT_AUTHOR_NAME": "Bob", "GIT_AUTHOR_EMAIL": "bob@example.com"}
REASON = (
    "opposite instructions to roll back payments: with helm/rollback in one, never in the other"
)


@pytest.fixture(scope="module")
def made_pulled(tmp_path_factory: pytest.TempPathFactory, module_home: Callable[[], Any]) -> Path:
    """Ann's clone has pulled Bob's rollback procedure, committed with --no-verify."""
    ann = {"shared/deploying-the-payments-service.md": ANN, **OTHER_ATOMS}
    return made_pull(tmp_path_factory, module_home, "imperative", ann, (BOB_PATH, BOB))


@pytest.fixture
def pulled(made_pulled: Path, tmp_path: Path) -> Path:
    """Ann's clone, copied from what `made_pulled` made once for this module."""
    copy_made(made_pulled, tmp_path)
    return tmp_path / "ann"


def test_the_post_merge_audit_reports_the_opposite_instruction(made_pulled: Path) -> None:
    out = (made_pulled / "pull.out").read_text(encoding="utf-8")
    assert "memkit audit: 1 unresolved contradiction(s)" in out
    assert (
        "CONTRADICTS shared/payments-rollback-new.md <-> "
        f"shared/deploying-the-payments-service.md: {REASON}"
    ) in out
    report = json.loads((made_pulled / "ann/.memkit/audit/last.json").read_text("utf-8"))
    assert [(r["incoming"], r["other"]) for r in report["unresolved"]] == [
        ("payments-rollback-new", "deploying-the-payments-service")
    ]


def without_bobs_step(ann: Path) -> None:
    """Ann's clone as it was before the pull brought Bob's step."""
    git(ann, "rm", "-q", "shared/payments-rollback-new.md")
    git(ann, "commit", "-q", "--no-verify", "-m", "not yet")


def test_memkit_add_of_bobs_step_in_anns_clone_flags_it(pulled: Path) -> None:
    without_bobs_step(pulled)
    result = subprocess.run(
        [sys.executable, "-m", "memkit", "add", "--type", "procedure", BOB_TEXT, "--json"],
        cwd=pulled,
        env={**os.environ, **BOB_ENV},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout)
    assert outcome["contradicts"] == ["deploying-the-payments-service"], outcome
    assert any(
        "contradicts `deploying-the-payments-service`" in f and "helm/rollback" in f
        for f in outcome["findings"]
    ), outcome["findings"]
    # Bob is not management: the step waits for review instead of a second live truth.
    assert outcome["pending_review"] and str(outcome["path"]).startswith("shared/_pending/")


def test_pre_commit_flags_bobs_step_in_anns_clone(pulled: Path) -> None:
    without_bobs_step(pulled)
    write_atom(pulled, "shared/payments-rollback-new.md", BOB)
    git(pulled, "add", "-A")
    commit = subprocess.run(
        ["git", "commit", "-m", "rollback"],
        cwd=pulled,
        env={**os.environ, **BOB_ENV},
        capture_output=True,
        text=True,
        check=False,
    )
    out = commit.stdout + commit.stderr
    assert (
        "shared/payments-rollback-new.md:2:1: MK106 contradicts `deploying-the-payments-service` "
        f"(shared/deploying-the-payments-service.md): {REASON}"
    ) in out, out
    assert commit.returncode == 1


def _prompt(ann: Path, warm: bool) -> str:
    payload: dict[str, object] = {
        "session_id": "s1",
        "cwd": str(ann),
        "prompt": "how do I roll back the payments service?",
    }
    if warm:
        out = run_hook("user-prompt-submit", payload, ann, engine=True).stdout
    else:
        out = memkit("hook", "user-prompt-submit", cwd=ann, stdin=json.dumps(payload)).stdout
    context: str = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    return context


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm-engine"])
def test_both_steps_in_one_prompt_get_the_disagreement_line(pulled: Path, warm: bool) -> None:
    with engine_running(pulled) if warm else contextlib.nullcontext():
        context = _prompt(pulled, warm)
    assert "## deploying-the-payments-service " in context
    assert "## payments-rollback-new " in context
    assert "memkit: payments-rollback-new and deploying-the-payments-service disagree" in context


def test_a_memory_of_just_the_two_still_gets_both_through_the_warm_engine(pulled: Path) -> None:
    """A new team's memory: vectors scaled between its only two atoms gave the second a score
    of 0, under recall's relative cut, and "payments rollback" got Bob's step alone
    (memkit.index.fusion, `min_span`)."""
    git(pulled, "rm", "-q", *(f"shared/{atom_id}.md" for atom_id in OTHERS))
    git(pulled, "commit", "-q", "--no-verify", "-m", "only the two")
    assert memkit("index", cwd=pulled).returncode == 0
    with engine_running(pulled):
        for prompt in ("payments rollback", "should I use helm to roll back?"):
            payload = {"session_id": prompt, "cwd": str(pulled), "prompt": prompt}
            out = json.loads(run_hook("user-prompt-submit", payload, pulled, engine=True).stdout)
            context = out["hookSpecificOutput"]["additionalContext"]
            assert "## deploying-the-payments-service " in context, prompt
            assert "## payments-rollback-new " in context, prompt
            assert "disagree" in context, prompt


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm-engine"])
def test_a_contradiction_let_in_at_write_is_said_in_the_writers_own_clone(
    tmp_path: Path, warm: bool
) -> None:
    """Management may commit a change of what live memory says with a warning (MK105). No pull
    audit runs in the writer's clone, yet both atoms reach the next prompt there: the write
    itself (`memkit add`, the commit's gate) keeps the pair where recall looks."""
    repo = make_memory_repo(tmp_path / "memory")
    write_atom(repo, "shared/deploying-the-payments-service.md", ANN)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "deploying payments")
    added = memkit(
        "add", "--type", "procedure", "--title", "Rolling back payments", BOB_TEXT, cwd=repo
    )
    assert added.returncode == 0 and "MK105" in added.stdout, added.stdout + added.stderr
    kept = repo / ".memkit/audit/written.json"
    assert "deploying-the-payments-service" in kept.read_text(encoding="utf-8")
    kept.unlink()  # the commit's gate finds and keeps it again
    git(repo, "add", "-A")
    committed = git(repo, "commit", "-q", "-m", "rolling back payments", check=False)
    assert committed.returncode == 0, committed.stdout + committed.stderr
    assert kept.is_file()
    assert memkit("index", cwd=repo).returncode == 0
    with engine_running(repo) if warm else contextlib.nullcontext():
        context = _prompt(repo, warm)
    assert "## deploying-the-payments-service " in context
    assert "## rolling-back-payments " in context
    assert "rolling-back-payments and deploying-the-payments-service disagree" in context


def test_a_kept_contradiction_holds_no_secret(tmp_path: Path) -> None:
    """The reason quotes the values that differ; a file under .memkit/ never holds a secret."""
    from memkit.atom import Atom
    from memkit.audit.write import Conflict, remember

    for atom_id in ("deploy-key", "deploy-key-new"):
        write_atom(tmp_path, f"shared/{atom_id}.md", atom_text(atom_id))
    key = "AKIA" + "Q3EXAMPLE7KEY4ZB"
    atom = Atom(
        path="shared/deploy-key-new.md",
        id="deploy-key-new",
        type="fact",
        confidence="tentative",
        created="2026-11-25",
        status="active",
        scope="shared",
        title="Deploy key",
        body="x",
    )
    reason = f"different value: {key} vs the old one"
    remember(tmp_path, [Conflict(atom, "deploy-key", "shared/deploy-key.md", reason, False)])
    kept = (tmp_path / ".memkit/audit/written.json").read_text(encoding="utf-8")
    assert "deploy-key-new" in kept and key not in kept and key[:4] in kept
