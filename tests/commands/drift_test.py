"""`memkit drift` as a person and CI run it (issue 44): from the memory, from the code project,
on a pull request, with --propose; `memkit install drift`; the commit hook through the real
pre-commit."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.drift.project import ATOMS, SAID, STALE, change_everything, code_project, write_atoms
from tests.helpers import commit_and_index, git, make_memory_repo, memkit

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """team-memory (the atoms of tests/drift/project.py, committed and indexed) beside app."""
    memory = make_memory_repo(tmp_path / "team-memory")
    write_atoms(memory)
    commit_and_index(memory)
    return memory, code_project(tmp_path / "app")


def test_from_the_memory_findings_name_the_atom_and_the_line(layout: tuple[Path, Path]) -> None:
    memory, app = layout
    clean = memkit("drift", "--project", "../app", cwd=memory)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "0 stale atom(s)" in clean.stdout
    change_everything(app)
    # The project was remembered: no --project this time.
    result = memkit("drift", cwd=memory)
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    for atom_id, sentence in SAID.items():
        line = next(x for x in lines if f"(atom `{atom_id}`)" in x)
        path, number, col, rest = line.split(":", 3)
        assert path == f"shared/{atom_id}.md"
        assert re.fullmatch(r" MK40[12] warning: .*", rest), line
        assert sentence in rest
        text = (memory / path).read_text(encoding="utf-8").split("\n")[int(number) - 1]
        assert text[int(col) - 1 :], line  # the claim's own column
    assert not any("still-true" in x or "nothing-checkable" in x for x in lines)
    data = json.loads(memkit("drift", "--json", cwd=memory).stdout)
    assert sorted(a["id"] for a in data[0]["atoms"]) == sorted(STALE)


def test_propose_writes_the_new_values_for_review(layout: tuple[Path, Path]) -> None:
    memory, app = layout
    change_everything(app)
    result = memkit("drift", "--project", str(app), "--propose", cwd=memory)
    assert result.returncode == 1
    assert "review with `git diff`, then commit (nothing was committed)" in result.stdout
    assert "needs a person: shared/deploy-staging.md" in result.stdout
    changed = git(memory, "status", "--porcelain").stdout.split()
    assert sorted(p for p in changed if p.endswith(".md")) == [
        "shared/net-conn.md",
        "shared/react-version.md",
        "shared/worker-retries.md",
    ]
    assert "`src/net/connection.py`" in (memory / "shared/net-conn.md").read_text(encoding="utf-8")
    assert "`max_retries: 8`" in (memory / "shared/worker-retries.md").read_text(encoding="utf-8")
    assert "React 18." in (memory / "shared/react-version.md").read_text(encoding="utf-8")
    assert memkit("validate", cwd=memory).returncode == 0
    # What was proposed holds now; what needs a person is still said.
    again = memkit("drift", "--project", str(app), cwd=memory)
    assert sorted(re.findall(r"atom `([\w-]+)`", again.stdout)) == [
        "build-script",
        "deploy-staging",
    ]


def test_from_the_code_project_it_checks_the_memories_the_agents_name(
    layout: tuple[Path, Path],
) -> None:
    memory, app = layout
    assert memkit("install", "claude", "--repo", "../team-memory", cwd=app).returncode == 0
    git(app, "add", "-A")
    git(app, "commit", "-q", "-m", "wire memkit")
    change_everything(app)
    result = memkit("drift", cwd=app / "src")
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"checked against {app}" in result.stdout
    assert set(re.findall(r"atom `([\w-]+)`", result.stdout)) == set(STALE)
    # `memkit install` told the memory's clone of the project: run there, it checks it too.
    there = memkit("drift", cwd=memory)
    assert f"checked against {app}" in there.stdout, there.stdout + there.stderr


def test_a_pull_request_is_annotated_on_the_files_it_changes(layout: tuple[Path, Path]) -> None:
    memory, app = layout
    base = git(app, "rev-parse", "HEAD").stdout.strip()
    git(app, "checkout", "-q", "-b", "feature")
    change_everything(app)
    summary = app.parent / "summary.md"
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    result = memkit("drift", "--repo", str(memory), "--base", base, cwd=app, env=env)
    assert result.returncode == 1, result.stdout + result.stderr
    notes = [x for x in result.stdout.splitlines() if x.startswith("::warning ")]
    assert len(notes) == len(STALE)
    renamed = next(x for x in notes if "net-conn" in x)
    assert renamed.startswith("::warning file=src/net/connection.py,line=1,col=1,title=MK401::")
    assert (
        "this change renames `src/net/conn.py` (to `src/net/connection.py`), named by `net-conn`"
        in renamed
    )
    retries = next(x for x in notes if "worker-retries" in x)
    assert retries.startswith("::warning file=config/worker.yaml,line=2,")
    assert "MK40" in summary.read_text(encoding="utf-8")
    # The base's own state is no finding of the pull request's: checked against itself, none.
    same = memkit("drift", "--repo", str(memory), "--base", "HEAD", cwd=app)
    assert same.returncode == 0, same.stdout


def test_a_memory_that_knows_no_project_says_how_to_name_one(tmp_path: Path) -> None:
    memory = make_memory_repo(tmp_path / "lonely")
    result = memkit("drift", cwd=memory)
    assert result.returncode == 2
    assert "--project DIR" in result.stderr


def test_install_drift_writes_the_hook_and_the_workflow_and_keeps_the_rest(
    layout: tuple[Path, Path],
) -> None:
    memory, app = layout
    (app / ".pre-commit-config.yaml").write_text(
        "# our hooks\nrepos:\n  - repo: https://github.com/pre-commit/pre-commit-hooks\n"
        "    rev: v4.6.0\n    hooks:\n      - id: trailing-whitespace  # keep me\n",
        encoding="utf-8",
    )
    git(memory, "remote", "add", "origin", "git@github.com:acme/team-memory.git")
    first = memkit("install", "drift", "--repo", "../team-memory", cwd=app)
    assert first.returncode == 0, first.stderr
    config = (app / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    assert "# our hooks" in config and "trailing-whitespace  # keep me" in config
    assert "entry: memkit drift --hook --repo ../team-memory" in config
    workflow = (app / ".github/workflows/memkit-drift.yml").read_text(encoding="utf-8")
    assert 'MEMORY_REPOSITORY: "acme/team-memory"' in workflow
    assert '--base "origin/${{ github.base_ref }}" --format github' in workflow
    # The workflow in ci/ (what the docs show) is the one install writes, but for the name.
    shipped = (ROOT / "ci/github/memkit-drift.yml").read_text(encoding="utf-8")
    assert shipped == workflow.replace("acme/team-memory", "OWNER/MEMORY-REPOSITORY")
    before = {
        p: p.read_bytes()
        for p in (app / ".pre-commit-config.yaml", app / ".github/workflows/memkit-drift.yml")
    }
    assert memkit("install", "drift", "--repo", "../team-memory", cwd=app).returncode == 0
    assert {p: p.read_bytes() for p in before} == before  # idempotent
    assert memkit("install", "drift", "--uninstall", cwd=app).returncode == 0
    assert "memkit-drift" not in (app / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    assert "trailing-whitespace" in (app / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    assert not (app / ".github/workflows/memkit-drift.yml").exists()


def test_the_hook_says_what_the_commit_leaves_stale_and_never_fails(
    layout: tuple[Path, Path],
) -> None:
    """`memkit drift --hook` as the commit hook runs it (tests/walks/stale_memory_walk_test.py
    runs it through the real pre-commit): the staged tree, new findings only, exit 0."""
    memory, app = layout
    change_everything(app, commit=False)
    result = memkit("drift", "--hook", "--repo", "../team-memory", cwd=app)
    assert result.returncode == 0, result.stderr
    for atom_id in STALE:
        assert f"(atom `{atom_id}` in team-memory)" in result.stdout
    assert "this commit leaves 5 atom(s) of team-memory stale (5 new)" in result.stdout
    again = memkit("drift", "--hook", "--repo", "../team-memory", cwd=app)
    assert "(atom `" not in again.stdout and "(0 new)" in again.stdout  # said once
    broken = memkit("drift", "--hook", "--repo", "../no-such-memory", cwd=app)
    assert broken.returncode == 0  # a commit is never stopped by memory
    # A commit made with --no-verify runs no hook; the memory's own check finds it.
    git(app, "commit", "-q", "--no-verify", "-m", "the big change")
    (app / "config/worker.yaml").write_text(
        "worker:\n  max_retries: 9\n  queue: jobs\n", encoding="utf-8"
    )
    git(app, "commit", "-q", "--no-verify", "-am", "nine")
    result = memkit("drift", cwd=memory)
    assert "`max_retries` is 9 in `config/worker.yaml` now" in result.stdout
    assert set(ATOMS) >= set(re.findall(r"atom `([\w-]+)`", result.stdout))
