"""The rough edges a newcomer meets in the first days (issue 30), each as they would meet it:
the real CLI in fresh processes, real git and hooks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memkit.audit.run import PairResult, format_report
from tests.helpers import atom_text, commit_and_index, git, make_memory_repo, memkit, write_atom

ROOT = Path(__file__).resolve().parents[2]


def test_init_makes_main_whatever_git_s_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "gitconfig"
    config.write_text(
        "[init]\n\tdefaultBranch = master\n[user]\n\tname = Ana\n\temail = ana@example.com\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    made = memkit("init", "team", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert git(tmp_path / "team", "branch", "--show-current").stdout.strip() == "main"


def test_roles_alone_lists_the_whitelist(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "memory")
    listed = memkit("roles", cwd=repo)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.split("\t")[2].strip() == "management"
    assert memkit("roles", "list", cwd=repo).stdout == listed.stdout


def test_the_readme_lists_each_command_once() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (`memkit [^|]*)\|", readme, flags=re.M)
    assert rows and len(rows) == len(set(rows)), [r for r in rows if rows.count(r) > 1]


def test_health_right_after_init_has_nothing_to_look_at(tmp_path: Path) -> None:
    repo = tmp_path / "memory"
    made = memkit("init", str(repo), cwd=tmp_path)  # the command a newcomer runs
    assert made.returncode == 0, made.stdout + made.stderr
    health = memkit("health", cwd=repo)
    assert health.returncode == 0, health.stdout + health.stderr
    assert "0 thing(s) to look at" in health.stdout
    assert "!!" not in health.stdout
    assert "write the first atom" in health.stdout


def test_doctor_in_a_code_project_says_so_and_leaves_nothing(tmp_path: Path) -> None:
    project = tmp_path / "app"
    project.mkdir()
    git(project, "init", "-q")
    doctor = memkit("doctor", cwd=project)
    assert doctor.returncode == 1
    assert "memory repository: none here" in doctor.stdout
    assert "ok   memory repository" not in doctor.stdout
    assert "memkit doctor --repo" in doctor.stdout
    assert sorted(p.name for p in project.iterdir()) == [".git"]


def test_a_version_and_a_host_are_concrete_values(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "memory", hooks=False)
    added = memkit(
        "add", "--dry-run", "Production runs PostgreSQL 16 on the db-prod-1 host", cwd=repo
    )
    assert added.returncode == 0, added.stdout + added.stderr
    assert "quality 0.65 pass" in added.stdout
    assert "concrete_value +0.15 (PostgreSQL 16)" in added.stdout
    assert "a version" not in added.stdout


def test_memory_md_follows_every_commit_and_merges(tmp_path: Path) -> None:
    made = make_memory_repo(tmp_path / "made")
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(made), str(origin))
    clones = []
    for name in ("ana", "ben"):
        clone = tmp_path / name
        git(tmp_path, "clone", "-q", str(origin), str(clone))
        git(clone, "config", "user.email", "alice@example.com")
        assert memkit("init", "--join", cwd=clone).returncode == 0
        clones.append(clone)
    for n, clone in enumerate(clones):
        write_atom(
            clone,
            f"shared/note-{n}.md",
            atom_text(f"note-{n}", body=f"- Always run `make check-{n}` before a push to main."),
        )
        git(clone, "add", "-A")
        done = git(clone, "commit", "-m", f"note {n}", check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        assert git(clone, "status", "--porcelain").stdout == ""  # nothing left behind
        assert "1 active atom" in (clone / "MEMORY.md").read_text(encoding="utf-8")
    ana, ben = clones
    git(ana, "push", "-q", "origin", "HEAD:main")
    # Both added an atom: the pull does not stop on MEMORY.md, and the next commit is right.
    pulled = git(ben, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main", check=False)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    write_atom(ben, "shared/note-9.md", atom_text("note-9", body="- Never push on Fridays."))
    git(ben, "add", "-A")
    done = git(ben, "commit", "-m", "note 9", check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    text = git(ben, "show", "HEAD:MEMORY.md").stdout
    assert "3 active atoms" in text, text
    assert memkit("summary", "--check", cwd=ben).returncode == 0


def test_the_audit_never_asks_the_older_atom_to_supersede_the_newer() -> None:
    pair = PairResult(
        "old-note",
        "shared/old-note.md",
        "new-note",
        "shared/new-note.md",
        "contradicts",
        "different port",
        0.9,
        False,
        "vector",
        newer="shared/new-note.md",
    )
    report = format_report([pair], 1)
    assert "add `supersedes: [old-note]` to shared/new-note.md" in report
    assert "supersedes: [new-note]" not in report


def test_search_keeps_to_recall_s_relevance_floor(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "memory", hooks=False)
    for n, (topic, body) in enumerate(
        [
            ("Deploys", "- Deploy with `make release`; Argo CD syncs the payments app."),
            ("Linting", "- Run `ruff check` before every push; CI rejects lint errors."),
            ("Postgres", "- Production runs PostgreSQL 16 on the db-prod-1 host."),
        ]
    ):
        write_atom(repo, f"shared/t{n}.md", atom_text(f"t{n}", title=topic, body=body))
    commit_and_index(repo)
    unrelated = memkit("search", "心跳間隔", cwd=repo)
    assert unrelated.returncode == 0
    assert unrelated.stdout == ""
    assert "--all-results" in unrelated.stderr
    everything = memkit("search", "心跳間隔", "--all-results", cwd=repo)
    assert "t0" in everything.stdout or "t1" in everything.stdout  # what the floor kept out
    found = memkit("search", "how do we deploy with argo cd", cwd=repo)
    assert found.stdout.startswith(" 1. t0 "), found.stdout
