"""ADRs as adr-tools writes them (issue 41, item 9): the log's own first record is no
decision; an imported record names its project, carries triggers, and has an id cut where a
phrase ends."""

from __future__ import annotations

from pathlib import Path

import pytest

from memkit.atom.read import read_atom
from tests.helpers import git, make_memory_repo, memkit

# What `adr init` writes, word for word (adr-tools 3.0.0, `init.md` template).
ADR_INIT = """# 1. Record architecture decisions

Date: 2024-01-10

## Status

Accepted

## Context

We need to record the architectural decisions made on this project.

## Decision

We will use Architecture Decision Records, as [described by Michael Nygard](http://thinkrelevance.com/blog/2011/11/15/documenting-architecture-decisions).

## Consequences

See Michael Nygard's article, linked above. For a lightweight ADR toolset, see Nat Pryce's [adr-tools](https://github.com/npryce/adr-tools).
"""
ARGO = """# 2. Deploy services with Argo CD instead of running helm upgrade from laptops by hand

Date: 2024-03-01

## Status

Accepted

## Decision

Production deploys are Argo CD applications synced from the deploy/ folder.
"""


@pytest.fixture
def imported(tmp_path: Path) -> Path:
    app = tmp_path / "app"
    (app / "doc/adr").mkdir(parents=True)
    (app / "doc/adr/0001-record-architecture-decisions.md").write_text(ADR_INIT, "utf-8")
    (app / "doc/adr/0002-deploy-with-argo-cd.md").write_text(ARGO, "utf-8")
    git(app, "init", "--quiet")
    repo = make_memory_repo(tmp_path / "team")
    done = memkit("import", "adr", str(app / "doc/adr"), cwd=repo)
    assert done.returncode == 0, done.stderr
    (repo / "import.out").write_text(done.stdout, encoding="utf-8")
    return repo


def test_the_record_adr_init_writes_is_skipped(imported: Path) -> None:
    said = (imported / "import.out").read_text(encoding="utf-8")
    assert "skipped: app/doc/adr/0001-record-architecture-decisions.md:1" in said
    assert "1 skipped (boilerplate 1)" in said
    assert not list(imported.glob("shared/adr-1-*.md"))


def test_an_imported_record_names_its_project_and_has_triggers(imported: Path) -> None:
    (path,) = imported.glob("shared/adr-2-*.md")
    atom = read_atom(imported, path.relative_to(imported).as_posix()).atom
    assert atom is not None
    assert atom.project == "app"
    assert atom.triggers[0] == "argo cd" and "helm" not in atom.triggers[:1]
    # Cut where the phrase ends, not on "instead" of "instead of running…".
    assert atom.id == "adr-2-deploy-services-with-argo-cd"
    found = memkit("search", "how do we deploy with argo cd", cwd=imported)
    assert atom.id in found.stdout


def test_a_record_may_be_declared_team_wide(tmp_path: Path) -> None:
    app = tmp_path / "app"
    (app / "doc/adr").mkdir(parents=True)
    (app / "doc/adr/0002-deploy-with-argo-cd.md").write_text(ARGO, "utf-8")
    git(app, "init", "--quiet")
    repo = make_memory_repo(tmp_path / "team")
    done = memkit("import", "adr", "--no-project", str(app / "doc/adr"), cwd=repo)
    assert done.returncode == 0, done.stderr
    (path,) = repo.glob("shared/adr-2-*.md")
    assert "project:" not in path.read_text(encoding="utf-8")
