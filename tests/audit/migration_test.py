"""Updates written as migrations, at the three moments: Ann's memory says to use Jenkins for CI
builds of the monorepo; Bob writes "We moved CI for the monorepo from Jenkins to GitHub
Actions". The pull audit reports the pair, `memkit add` of Bob's update in Ann's clone flags
it, and when both are injected into one prompt (cold hook and warm engine) one line says they
disagree. The classifier's verdicts on positive and negative pairs, both ways round."""

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

from memkit.audit.classify import CONTRADICTS, classify
from tests.audit.imperative_test import OTHER_ATOMS
from tests.helpers import (
    atom_text,
    copy_made,
    engine_running,
    git,
    made_pull,
    memkit,
    run_hook,
)

ANN_TEXT = "Use Jenkins for CI builds of the monorepo."
BOB_TEXT = "We moved CI for the monorepo from Jenkins to GitHub Actions."
ANN = atom_text("ci-for-the-monorepo", title="CI for the monorepo", body=f"- {ANN_TEXT}")
BOB = atom_text("monorepo-ci-moved", title="Monorepo CI moved", body=f"- {BOB_TEXT}")
BOB_PATH = "shared/monorepo-ci-moved.md"
BOB_ENV = {"GIT_AUTHOR_NAME": "Bob", "GIT_AUTHOR_EMAIL": "bob@example.com"}
REASON = "moved from Jenkins to GitHub Actions: the other still uses Jenkins"


@pytest.fixture(scope="module")
def made_pulled(tmp_path_factory: pytest.TempPathFactory, module_home: Callable[[], Any]) -> Path:
    """Ann's clone has pulled Bob's update, committed with --no-verify."""
    ann = {"shared/ci-for-the-monorepo.md": ANN, **OTHER_ATOMS}
    return made_pull(tmp_path_factory, module_home, "migration", ann, (BOB_PATH, BOB))


@pytest.fixture
def pulled(made_pulled: Path, tmp_path: Path) -> Path:
    copy_made(made_pulled, tmp_path)
    return tmp_path / "ann"


def test_the_post_merge_audit_reports_the_migration(made_pulled: Path) -> None:
    out = (made_pulled / "pull.out").read_text(encoding="utf-8")
    assert "memkit audit: 1 unresolved contradiction(s)" in out, out
    assert (
        f"CONTRADICTS shared/monorepo-ci-moved.md <-> shared/ci-for-the-monorepo.md: {REASON}"
    ) in out, out


def test_memkit_add_of_the_update_in_anns_clone_flags_it(pulled: Path) -> None:
    git(pulled, "rm", "-q", "shared/monorepo-ci-moved.md")
    git(pulled, "commit", "-q", "--no-verify", "-m", "not yet")
    result = subprocess.run(
        [sys.executable, "-m", "memkit", "add", BOB_TEXT, "--json"],
        cwd=pulled,
        env={**os.environ, **BOB_ENV},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout)
    assert outcome["contradicts"] == ["ci-for-the-monorepo"], outcome
    assert any(
        "contradicts `ci-for-the-monorepo`" in f and REASON in f for f in outcome["findings"]
    ), outcome["findings"]
    assert outcome["pending_review"] and str(outcome["path"]).startswith("shared/_pending/")


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm-engine"])
def test_both_in_one_prompt_get_the_disagreement_line(pulled: Path, warm: bool) -> None:
    payload = {"session_id": "s1", "cwd": str(pulled), "prompt": "where does monorepo CI run?"}
    with engine_running(pulled) if warm else contextlib.nullcontext():
        if warm:
            out = run_hook("user-prompt-submit", payload, pulled, engine=True).stdout
        else:
            out = memkit("hook", "user-prompt-submit", cwd=pulled, stdin=json.dumps(payload)).stdout
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "## ci-for-the-monorepo " in context, context
    assert "## monorepo-ci-moved " in context, context
    assert "memkit: monorepo-ci-moved and ci-for-the-monorepo disagree" in context, context


# An atom that states the old thing, and an update that retires it.
RETIRING = [
    (
        "Use Jenkins for CI builds of the monorepo.",
        "Jenkins is deprecated for the monorepo; CI runs on GitHub Actions now.",
        "deprecated Jenkins: the other still uses Jenkins",
    ),
    (
        "Store session tokens in Redis.",
        "Session tokens no longer live in Redis; they are stored in Postgres.",
        "stopped using Redis: the other still uses Redis",
    ),
    (
        "Log errors with Sentry.",
        "Sentry was replaced by Datadog for error logging.",
        "replaced Sentry with Datadog: the other still uses Sentry",
    ),
    (
        "The staging cluster runs Kubernetes 1.27.",
        "The staging cluster was upgraded to Kubernetes 1.29.",
        "upgraded to Kubernetes 1.29: the other still says Kubernetes 1.27",
    ),
    (
        "Payments are owned by the checkout team.",
        "The checkout team handed payments over to the billing team.",
        "handed over from the checkout team to the billing team: "
        "the other still says the checkout team",
    ),
    (
        "前端用 webpack 打包。",
        "前端已經從 webpack 遷移到 vite。",
        REASON.replace("Jenkins", "webpack").replace("GitHub Actions", "vite"),
    ),
    (
        "用 Jenkins 跑 CI。",
        "Jenkins 已經停用，CI 改在 GitHub Actions 上跑。",
        "retired Jenkins: the other still uses Jenkins",
    ),
    (
        "錯誤日誌用 Sentry 收集。",
        "錯誤日誌的收集已由 Datadog 取代 Sentry。",
        "replaced Sentry with Datadog: the other still uses Sentry",
    ),
    (
        "支付模組由結帳團隊負責。",
        "結帳團隊已把支付模組移交給帳務團隊。",
        "handed over from 結帳團隊 to 帳務團隊: the other still says 結帳團隊",
    ),
]

# Compatible: the same tool for another job, another subject, advice, a plan, history, an
# addition, the update already stated.
COMPATIBLE = [
    ("Use Jenkins for CI builds of the monorepo.", "Jenkins also builds the docs site nightly."),
    (
        "Use Jenkins for CI builds of the monorepo.",
        "We moved the docs CI from Jenkins to GitHub Actions.",
    ),
    (
        "The staging cluster runs Kubernetes 1.27.",
        "Upgrade Kubernetes one minor version at a time.",
    ),
    ("Package the frontend with webpack.", "We will migrate the frontend to Vite next quarter."),
    ("Use Jenkins for CI builds of the monorepo.", "Until 2023 we used Jenkins for the monorepo."),
    ("Store session tokens in Redis.", "Rate-limit counters moved from Memcached to Redis."),
    (
        "The search service uses Elasticsearch 8.11.",
        "The search service was upgraded to Elasticsearch 8.11 in March.",
    ),
    ("用 Jenkins 跑 monorepo 的 CI。", "文件網站的 CI 已從 Jenkins 遷移到 GitHub Actions。"),
    ("前端用 webpack 打包。", "我們計劃下一季把前端遷移到 vite。"),
    ("用 Jenkins 跑 CI。", "2023 年以前我們用 Travis CI 跑 CI，之後才換成 Jenkins。"),
    ("支付模組由結帳團隊負責。", "結帳團隊已把搜尋頁面移交給探索團隊。"),
]


@pytest.mark.parametrize(("old", "update", "reason"), RETIRING)
@pytest.mark.parametrize("similarity", [0.85, 0.65])
def test_an_update_that_retires_what_the_other_states_contradicts_it(
    old: str, update: str, reason: str, similarity: float
) -> None:
    for a, b in ((old, update), (update, old)):
        verdict = classify(a, b, similarity=similarity)
        assert verdict.kind == CONTRADICTS, (a, b, verdict)
        assert verdict.reason == reason


@pytest.mark.parametrize(("a", "b"), COMPATIBLE)
def test_a_compatible_pair_stays_compatible(a: str, b: str) -> None:
    for x, y in ((a, b), (b, a)):
        verdict = classify(x, y, similarity=0.85)
        assert verdict.kind != CONTRADICTS, (x, y, verdict)
