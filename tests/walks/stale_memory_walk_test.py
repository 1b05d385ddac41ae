"""A week of a code project that moves under its memory (issue 44): each kind of change makes
the atom naming it stale at the project's commit (the real pre-commit running the hook
`memkit install drift` wrote), in its pull request's CI, in `memkit health`, on the site and
in the line the agent's hook puts beside it; the atom that still holds stays quiet, the one
with nothing checkable is never flagged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.drift.project import SAID, STALE, change_everything, code_project, write_atoms
from tests.helpers import commit_and_index, context, git, make_memory_repo, memkit, run_hook

pytestmark = pytest.mark.slow


def test_a_moving_code_project_makes_its_memory_say_so_everywhere(tmp_path: Path) -> None:
    memory = make_memory_repo(tmp_path / "team-memory")
    write_atoms(memory)
    commit_and_index(memory)
    app = code_project(tmp_path / "app")
    wired = memkit("install", "claude", "drift", "--repo", "../team-memory", cwd=app)
    assert wired.returncode == 0, wired.stdout + wired.stderr
    git(app, "add", "-A")
    git(app, "commit", "-q", "-m", "memkit: agents and drift checks")
    installed = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"],
        cwd=app,
        capture_output=True,
        text=True,
        check=False,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    base = git(app, "rev-parse", "HEAD").stdout.strip()

    # The commit: the project's own hook says what it leaves stale, and lets it through.
    git(app, "checkout", "-q", "-b", "big-change")
    change_everything(app, commit=False)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    committed = subprocess.run(
        ["git", "commit", "-m", "the big change"],
        cwd=app,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    said = committed.stdout + committed.stderr
    assert committed.returncode == 0, said
    for atom_id in STALE:
        assert f"(atom `{atom_id}` in team-memory)" in said, said
    assert "still-true" not in said and "nothing-checkable" not in said

    # The pull request: CI annotates the files that make atoms stale.
    ci = memkit("drift", "--repo", str(memory), "--base", base, "--format", "github", cwd=app)
    assert ci.returncode == 1
    notes = [x for x in ci.stdout.splitlines() if x.startswith("::warning ")]
    assert sorted(n.rsplit("named by `", 1)[1].split("`")[0] for n in notes) == sorted(STALE)

    # memkit health in the memory, with the evidence.
    health = json.loads(memkit("health", "--json", cwd=memory).stdout)
    (line,) = [c for c in health["checks"] if c["kind"] == "drift"]
    items = {i.split(" ", 1)[0]: i for i in line["items"]}
    assert sorted(items) == sorted(STALE)
    for atom_id, sentence in SAID.items():
        assert sentence in items[atom_id]
    text = memkit("health", cwd=memory).stdout
    assert "!!  stale against the code (last `memkit drift`): 5: " in text

    # The site: the stale page, each atom's page, the start page's health line.
    out = tmp_path / "site"
    built = memkit("site", "--out", str(out), cwd=memory)
    assert built.returncode == 0, built.stderr
    page = (out / "stale.html").read_text(encoding="utf-8")
    assert "Stale against the code (5)" in page
    assert "is 8 in <code>" not in page  # escaped text, not markup
    assert "`max_retries` is 8 in `config/worker.yaml` now" in page.replace("&#x27;", "'")
    assert "may be stale" in (out / "atoms/net-conn.html").read_text(encoding="utf-8")
    assert "may be stale" not in (out / "atoms/still-true.html").read_text(encoding="utf-8")
    assert 'href="stale.html"' in (out / "index.html").read_text(encoding="utf-8")

    # The agent's hook, run as Claude Code runs it in the project (the command its settings
    # hold: `--repo ../team-memory`): the line beside the atom.
    hook_repo = Path("../team-memory")
    prompt = {"prompt": "How do we deploy to staging with make?", "session_id": "w1"}
    answer = context(
        run_hook("user-prompt-submit", prompt, app, hook_repo, env={"CLAUDE_PROJECT_DIR": str(app)})
    )
    assert "## deploy-staging" in answer
    assert (
        "(may be stale: `make deploy-staging`: `Makefile` no longer defines `deploy-staging`"
        in answer
    )
    quiet = {"prompt": "How do we run the lint check with npm?", "session_id": "w2"}
    answer = context(
        run_hook("user-prompt-submit", quiet, app, hook_repo, env={"CLAUDE_PROJECT_DIR": str(app)})
    )
    assert "## still-true" in answer and "may be stale" not in answer
