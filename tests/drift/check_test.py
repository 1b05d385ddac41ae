"""Drift on real git repositories: what a commit of a code project does to the atoms that
name it (issue 44). Each kind of change makes the atom naming it stale, with the evidence; an
atom that still holds stays quiet; one with nothing checkable is never flagged."""

from __future__ import annotations

from pathlib import Path

import pytest

from memkit.drift.check import CHANGED, CONFIRMED, GONE, UNCHECKABLE
from memkit.drift.run import Report, drift
from memkit.drift.say import describe
from tests.drift.project import ATOMS, SAID, STALE, change_everything, code_project, write_atoms
from tests.helpers import atom_text, git, make_memory_repo, write_atom


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    repo = make_memory_repo(tmp_path / "team-memory", hooks=False)
    write_atoms(repo)
    return repo


def said(report: Report) -> dict[str, list[str]]:
    return {a.id: [describe(v) for v in a.stale] for a in report.atoms}


def states(report: Report, atom_id: str) -> set[str]:
    return {v.state for a in report.atoms if a.id == atom_id for v in a.verdicts}


def test_each_change_makes_the_atom_naming_it_stale(memory: Path, tmp_path: Path) -> None:
    app = code_project(tmp_path / "app")
    before = drift(memory, app)
    assert not before.stale, said(before)
    change_everything(app)
    after = drift(memory, app)
    found = said(after)
    assert sorted(a.id for a in after.stale) == sorted(STALE)
    for atom_id, sentence in SAID.items():
        assert any(s.startswith(sentence) for s in found[atom_id]), (atom_id, found[atom_id])
    # The history says when: the commit that made the change.
    commit = git(app, "rev-parse", "--short", "HEAD").stdout.strip()
    assert commit in " ".join(found["net-conn"] + found["deploy-staging"])


def test_what_still_holds_stays_quiet_and_nothing_checkable_is_never_flagged(
    memory: Path, tmp_path: Path
) -> None:
    app = code_project(tmp_path / "app")
    change_everything(app)
    report = drift(memory, app)
    assert states(report, "still-true") == {CONFIRMED}
    assert states(report, "nothing-checkable") == set()  # no claim at all
    assert {a.id for a in report.stale}.isdisjoint({"still-true", "nothing-checkable"})


def test_a_path_the_project_never_had_is_not_checkable_not_gone(
    memory: Path, tmp_path: Path
) -> None:
    """An atom about another project names files this one never held: no guess."""
    app = code_project(tmp_path / "app")
    write_atom(
        memory,
        "shared/elsewhere.md",
        atom_text(
            "elsewhere",
            body="- The billing service keeps its schema in `db/schema.sql`; run `make migrate`.",
        ),
    )
    report = drift(memory, app)
    assert states(report, "elsewhere") == {UNCHECKABLE}


def test_a_value_found_by_search_is_changed_only_if_the_file_held_it(
    memory: Path, tmp_path: Path
) -> None:
    """No file named: a key found elsewhere with another value is another setting of the
    same name, unless that file once held the atom's value."""
    app = code_project(tmp_path / "app")
    write_atom(
        memory,
        "shared/queue-name.md",
        atom_text("queue-name", body="- The worker reads `queue: emails`."),
    )
    write_atom(
        memory,
        "shared/retry-bare.md",
        atom_text("retry-bare", body="- Workers retry `max_retries: 5` times."),
    )
    before = drift(memory, app)
    assert states(before, "queue-name") == {UNCHECKABLE}  # the file never said emails
    assert states(before, "retry-bare") == {CONFIRMED}
    change_everything(app)
    after = drift(memory, app)
    assert states(after, "retry-bare") == {CHANGED}  # config/worker.yaml held 5, now 8
    assert states(after, "queue-name") == {UNCHECKABLE}


def test_a_pull_request_is_told_only_what_it_makes_stale(memory: Path, tmp_path: Path) -> None:
    app = code_project(tmp_path / "app")
    git(app, "rm", "-q", "Makefile")  # stale before the pull request: not its doing
    git(app, "commit", "-q", "-m", "no make")
    base = git(app, "rev-parse", "HEAD").stdout.strip()
    git(app, "checkout", "-q", "-b", "feature")
    change_everything(app)
    report = drift(memory, app, base=base)
    found = {a.id: a.stale for a in report.stale}
    assert "deploy-staging" not in found
    assert sorted(found) == sorted(set(STALE) - {"deploy-staging"})
    (renamed,) = found["net-conn"]
    assert (renamed.state, renamed.file, renamed.now) == (
        GONE,
        "src/net/conn.py",
        "src/net/connection.py",
    )
    assert renamed.since == "this change"


def test_the_commit_being_made_is_checked_with_its_renames(memory: Path, tmp_path: Path) -> None:
    app = code_project(tmp_path / "app")
    change_everything(app, commit=False)  # staged, as a commit hook meets it
    report = drift(memory, app, staged=True)
    assert report.commit is None
    assert any(s.startswith(SAID["net-conn"]) for s in said(report)["net-conn"])
    assert sorted(a.id for a in report.stale) == sorted(STALE)


def test_a_second_check_reuses_what_the_history_said(memory: Path, tmp_path: Path) -> None:
    """The verdicts the history settled are kept per commit (`.memkit/drift/`), and a new
    commit that touches none of their files keeps them: the same answer, not read again."""
    (memory / ".memkit").mkdir(exist_ok=True)
    app = code_project(tmp_path / "app")
    change_everything(app)
    first = said(drift(memory, app))
    assert list((memory / ".memkit/drift").glob("verdicts-*.json"))
    (app / "src/main.py").write_text("print('bye')\n", encoding="utf-8")
    git(app, "commit", "-qam", "unrelated")
    assert said(drift(memory, app)) == first
    assert ATOMS.keys() >= set(first)
