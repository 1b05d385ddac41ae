"""Two weeks of a three-person team (issue 41): alice management, bob a member, carol new,
real git, a shared origin, CI on pull requests. Where a fix memkit printed went round in
circles, each test here walks it to the end.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import git, memkit, write_atom
from tests.hints.cases import NEW_DECISION, NPM_OVER_PNPM
from tests.hints.team import (
    PNPM,
    Team,
    commit,
    copy_team,
    hints,
    made_team,
    run_ci,
    run_command,
    sneak,
)


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory, module_home: Callable[[], Any]) -> Path:
    return made_team(tmp_path_factory, module_home, "two-weeks")


@pytest.fixture
def team(made: Path, tmp_path: Path) -> Team:
    return copy_team(made, tmp_path)


def test_ci_mk204_after_a_no_verify_edit_ends_with_one_propose(team: Team) -> None:
    """Item 1: CI's MK204 for an approved decision edited past the hooks. `review propose`
    used to put HEAD's (the edited) text back as "approved", so CI said MK204 again, and
    restoring the approved text was refused locally with the same MK204."""
    bob = team.bob
    git(bob, "checkout", "--quiet", "-b", "pnpm-10")
    (bob / "shared/use-pnpm.md").write_text(PNPM.replace("pnpm 9", "pnpm 10"), encoding="utf-8")
    sneak(bob, "pnpm 10")
    git(bob, "push", "--quiet", "-u", "origin", "pnpm-10")
    rc, out = run_ci(team, "pnpm-10", "bob")
    assert rc == 1
    (hint,) = hints(out, "MK204")
    assert hint.command == "memkit review propose use-pnpm"
    run_command(bob, hint.command)
    assert (bob / "shared/use-pnpm.md").read_text(encoding="utf-8") == PNPM
    proposal = (bob / "shared/_pending/use-pnpm-2.md").read_text(encoding="utf-8")
    assert "pnpm 10" in proposal and "supersedes: [use-pnpm]" in proposal
    rc, out = commit(bob, "review: propose use-pnpm-2")  # through the hooks
    assert rc == 0, out
    git(bob, "push", "--quiet")
    rc, out = run_ci(team, "pnpm-10", "bob")
    assert rc == 0, out

    # Restoring the approved text by hand is a change back to what review saw: accepted.
    git(bob, "checkout", "--quiet", "-b", "again", "origin/main")
    (bob / "shared/use-pnpm.md").write_text(PNPM.replace("pnpm 9", "pnpm 11"), encoding="utf-8")
    sneak(bob, "pnpm 11")
    git(bob, "checkout", "--quiet", "origin/main", "--", "shared/use-pnpm.md")
    rc, out = commit(bob, "put it back")
    assert rc == 0, out


def test_a_members_decision_is_only_offered_review(team: Team) -> None:
    """Item 2: MK106 offered a member `supersedes:` on a decision; following it gave MK204
    and MK023, whose `validate --fix` retired the approved decision in the member's tree, and
    `review propose` of that made a copy of the old decision (then -3)."""
    bob = team.bob
    write_atom(bob, "shared/use-npm.md", NPM_OVER_PNPM.replace("supersedes: [use-pnpm]\n", ""))
    rc, out = commit(bob, "npm")
    assert rc == 1
    (mk106,) = [line for line in out.splitlines() if " MK106 " in line]
    assert "supersedes" not in mk106.split("npm;", 1)[1] and "`git mv " in mk106

    write_atom(bob, "shared/use-npm.md", NPM_OVER_PNPM)
    rc, out = commit(bob, "npm")
    assert rc == 1
    (mk023,) = hints(out, "MK023")
    assert mk023.command == "git mv shared/use-npm.md shared/_pending/use-npm.md"
    approved = (bob / "shared/use-pnpm.md").read_text(encoding="utf-8")
    fixed = memkit("validate", "--fix", cwd=bob)
    assert "left as it is: only management retires an approved `decision`" in fixed.stdout
    assert (bob / "shared/use-pnpm.md").read_text(encoding="utf-8") == approved

    # A retirement written by hand is no change to propose: put back, nothing written.
    (bob / "shared/use-pnpm.md").write_text(
        approved.replace("created:", "status: superseded\nsuperseded_by: [use-npm]\ncreated:"),
        encoding="utf-8",
    )
    proposed = memkit("review", "propose", "use-pnpm", cwd=bob)
    assert proposed.returncode == 0, proposed.stderr
    assert "nothing to propose" in proposed.stdout
    assert (bob / "shared/use-pnpm.md").read_text(encoding="utf-8") == approved
    assert not list((bob / "shared/_pending").glob("use-pnpm-*.md"))

    run_command(bob, mk023.command)
    rc, out = commit(bob, "npm, for review")
    assert rc == 0, out


def test_one_atom_keeps_one_id_and_its_proposer_hears_the_decision(team: Team) -> None:
    """Item 3: every propose minted a new id (-2, -3) and approval made the change another
    atom; the site called the approval a rename; a rejected atom's author was never told."""
    alice, bob = team.alice, team.bob
    path = bob / "shared/use-pnpm.md"
    path.write_text(PNPM.replace("pnpm 9", "pnpm 10"), encoding="utf-8")
    assert memkit("review", "propose", "use-pnpm", cwd=bob).returncode == 0
    path.write_text(PNPM.replace("pnpm 9", "pnpm 11"), encoding="utf-8")
    again = memkit("review", "propose", "use-pnpm", cwd=bob)
    assert "updated the proposal `use-pnpm-2`" in again.stdout, again.stdout
    assert [p.name for p in (bob / "shared/_pending").glob("*.md")] == ["use-pnpm-2.md"]
    assert "created: 20" in (bob / "shared/_pending/use-pnpm-2.md").read_text(encoding="utf-8")
    write_atom(bob, "shared/_pending/use-bun.md", NEW_DECISION)
    rc, out = commit(bob, "proposals")
    assert rc == 0, out
    git(bob, "push", "--quiet")

    git(alice, "pull", "--quiet")
    approved = memkit("review", "approve", "use-pnpm-2", cwd=alice)
    assert "as the new text of `use-pnpm`" in approved.stdout, approved.stdout + approved.stderr
    rc, out = commit(alice, "review: approve use-pnpm-2")
    assert rc == 0, out
    rejected = memkit("review", "reject", "use-bun", "--reason", "we keep node", cwd=alice)
    assert rejected.returncode == 0, rejected.stderr
    rc, out = commit(alice, "review: reject use-bun")
    assert rc == 0, out
    git(alice, "push", "--quiet")
    text = (alice / "shared/use-pnpm.md").read_text(encoding="utf-8")
    assert "id: use-pnpm\n" in text and "pnpm 11" in text and "supersedes" not in text
    assert "reviewed: 20" in (alice / "archive/rejected/use-bun.md").read_text(encoding="utf-8")

    pulled = git(bob, "pull")
    said = pulled.stdout + pulled.stderr
    assert "`use-bun`, which you proposed, was rejected by alice-test: we keep node" in said, said
    assert "`use-pnpm-2`, which you proposed, was approved by alice-test as the new text of" in said

    site = memkit("site", "--out", str(team.root / "site"), cwd=alice)
    assert site.returncode == 0, site.stderr
    page = (team.root / "site/atoms/use-pnpm.html").read_text(encoding="utf-8")
    assert "approved" in page and "renamed" not in page


def test_mk201_for_an_unknown_email_names_the_whitelist_and_the_command(team: Team) -> None:
    """Item 4: MK201 said "(you are `carol-m`, roles: none)"."""
    carol = team.carol
    git(carol, "config", "user.email", "carol-m@example.com")
    write_atom(carol, "roles/programmer/x.md", PNPM.replace("use-pnpm", "x"))
    rc, out = commit(carol, "x")
    assert rc == 1
    (hint,) = hints(out, "MK201")
    assert "you are `carol-m` <carol-m@example.com>, not listed in shared/_roles.md" in out
    assert hint.by_management
    assert hint.command == (
        "memkit roles add carol-m --email carol-m@example.com --role programmer"
    )


def test_the_pull_after_committing_a_role_goes_through(team: Team, tmp_path: Path) -> None:
    """Item 5: `memkit init --join` said "commit your role now"; the README's `git pull`
    after that stopped on "Need to specify how to reconcile divergent branches"."""
    dave = tmp_path / "dave"
    git(tmp_path, "clone", "--quiet", str(team.origin), str(dave))
    git(dave, "config", "user.email", "dave@example.com")
    joined = memkit("init", "--join", cwd=dave)
    assert "`git pull` rebases your commits onto the team's" in joined.stdout
    rc, out = commit(dave, "role: dave")
    assert rc == 0, out
    added = memkit(
        "roles", "add", "dave", "--email", "dave@example.com", "--role", "qa", cwd=team.alice
    )
    assert added.returncode == 0, added.stderr
    rc, out = commit(team.alice, "roles: dave")
    assert rc == 0, out
    git(team.alice, "push", "--quiet")
    pulled = git(dave, "pull", check=False)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    assert git(dave, "push", "--quiet", check=False).returncode == 0
    assert "roles: qa" in memkit("roles", "whoami", cwd=dave).stdout
    assert git(dave, "log", "--format=%s").stdout.split("\n")[:2] == ["role: dave", "roles: dave"]
