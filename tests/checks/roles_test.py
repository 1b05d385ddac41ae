"""Roles and review through real commits, with several git identities (one clone each)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memkit.roles import parse_roles
from tests.helpers import atom_text, copy_made, git, make_memory_repo, memkit, write_atom

ROLES = """# Roles

| user | email | roles |
|------|-------|-------|
| alice-test | alice@example.com | management |
| bob | bob@example.com | art |
| carol | carol@example.com | programmer, management |
"""


def commit(repo: Path, message: str = "memory") -> tuple[int, str]:
    git(repo, "add", "-A")
    result = git(repo, "commit", "-m", message, check=False)
    return result.returncode, result.stdout + result.stderr


@pytest.fixture(scope="module")
def made_team(tmp_path_factory: pytest.TempPathFactory, module_home: Callable[[], Any]) -> Path:
    """alice made the repo (management) and listed bob and carol; each has a clone."""
    tmp_path = tmp_path_factory.mktemp("team")
    with module_home():
        alice = make_memory_repo(tmp_path / "alice")
        (alice / "shared/_roles.md").write_text(ROLES, encoding="utf-8")
        rc, out = commit(alice, "roles")
        assert rc == 0, out
        clones = {"alice": alice}
        for name in ("bob", "carol"):
            clone = tmp_path / name
            git(tmp_path, "clone", "--quiet", str(alice), str(clone))
            git(clone, "config", "user.email", f"{name}@example.com")
            git(clone, "config", "user.name", name.capitalize())
            assert memkit("init", "--join", cwd=clone).returncode == 0
            clones[name] = clone
    return tmp_path


@pytest.fixture
def team(made_team: Path, tmp_path: Path) -> dict[str, Path]:
    """A copy of what `made_team` made once for this module."""
    copy_made(made_team, tmp_path)
    return {name: tmp_path / name for name in ("alice", "bob", "carol")}


def test_parse_markdown_table_and_yaml_block() -> None:
    table = parse_roles(ROLES)
    bob = table.find("bob@example.com")
    assert bob is not None
    assert (bob.user, bob.roles) == ("bob", frozenset({"art"}))
    carol = table.find("carol")
    assert carol is not None
    assert carol.roles == {"programmer", "management"}
    yaml = parse_roles("```yaml\nusers:\n  dan:\n    email: dan@x.org\n    roles: [planner]\n```\n")
    dan = yaml.find("dan@x.org")
    assert dan is not None
    assert dan.roles == {"planner"}


def test_role_folders_need_the_role(team: dict[str, Path]) -> None:
    bob = team["bob"]
    write_atom(
        bob,
        "roles/art/palette-size.md",
        atom_text("palette-size", body="- Always export textures as 2048 px PNG files."),
    )
    assert commit(bob)[0] == 0
    write_atom(bob, "roles/programmer/lint.md", atom_text("lint"))
    rc, out = commit(bob)
    assert rc == 1
    assert (
        "roles/programmer/lint.md:1:1: MK201 writing in roles/programmer/ needs the role "
        "`programmer`" in out
    )
    assert "you are `bob`, roles: art" in out


def test_personal_folders_belong_to_their_owner(team: dict[str, Path]) -> None:
    bob = team["bob"]
    write_atom(bob, "personal/bob/role.md", "roles: [art]\n")
    assert commit(bob)[0] == 0
    write_atom(bob, "personal/carol/role.md", "roles: [management]\n")
    rc, out = commit(bob)
    assert rc == 1
    assert "MK202 personal/carol/ belongs to `carol`" in out


def test_only_management_changes_the_whitelist(team: dict[str, Path]) -> None:
    bob = team["bob"]
    roles = bob / "shared/_roles.md"
    roles.write_text(ROLES.replace("| art |", "| art, management |"), encoding="utf-8")
    rc, out = commit(bob)
    assert rc == 1
    assert "MK203 only management may change the role whitelist" in out


def test_self_declared_management_without_the_whitelist_is_refused(team: dict[str, Path]) -> None:
    bob = team["bob"]
    write_atom(bob, "personal/bob/role.md", "roles: [management]\n")
    assert commit(bob)[0] == 0  # declaring is allowed; it grants nothing alone
    (bob / "shared/_roles.md").write_text(
        ROLES + "| eve | eve@example.com | art |\n", encoding="utf-8"
    )
    rc, out = commit(bob)
    assert rc == 1
    assert "MK203" in out
    assert "does not list you as management" in out


def test_whitelisted_management_must_also_declare_it(team: dict[str, Path]) -> None:
    carol = team["carol"]
    (carol / "shared/_roles.md").write_text(
        ROLES + "| eve | eve@example.com | art |\n", encoding="utf-8"
    )
    rc, out = commit(carol)
    assert rc == 1
    assert "management is not declared in personal/carol/role.md" in out
    write_atom(carol, "personal/carol/role.md", "roles: [programmer, management]\n")
    rc, out = commit(carol)
    assert rc == 0, out


def test_a_commit_cannot_grant_its_own_author_a_role(team: dict[str, Path]) -> None:
    bob = team["bob"]
    (bob / "shared/_roles.md").write_text(
        ROLES.replace("| art |", "| art, programmer |"), encoding="utf-8"
    )
    write_atom(bob, "roles/programmer/lint.md", atom_text("lint"))
    rc, out = commit(bob)
    assert rc == 1
    assert "MK201" in out and "MK203" in out


DECISION = atom_text(
    "use-postgres-16",
    type_="decision",
    body="- Always use PostgreSQL 16 for new services; the ops team supports only v16.",
)


def test_sensitive_atoms_go_through_review(team: dict[str, Path]) -> None:
    bob, alice = team["bob"], team["alice"]
    write_atom(bob, "shared/use-postgres-16.md", DECISION)
    rc, out = commit(bob)
    assert rc == 1
    assert (
        "MK204 `decision` atoms enter shared/ only through review; move it with "
        "`git mv shared/use-postgres-16.md shared/_pending/use-postgres-16.md`"
    ) in out
    git(bob, "reset", "--quiet")
    (bob / "shared/use-postgres-16.md").rename(bob / "shared/_pending/use-postgres-16.md")
    rc, out = commit(bob)
    assert rc == 0, out
    git(bob, "push", "--quiet", "origin", "HEAD:refs/heads/bob")

    git(alice, "merge", "--quiet", "bob")
    listed = memkit("review", "list", cwd=alice)
    # The atom names no author: the list says who committed it.
    assert listed.stdout.split("\t")[0::2] == ["use-postgres-16", "bob@example.com\n"]
    refused = memkit("review", "approve", "use-postgres-16", cwd=bob)
    assert refused.returncode == 1
    assert "only management" in refused.stderr
    approved = memkit("review", "approve", "use-postgres-16", cwd=alice)
    assert approved.returncode == 0, approved.stderr
    rc, out = commit(alice, "review: approve use-postgres-16")
    assert rc == 0, out
    assert (alice / "shared/use-postgres-16.md").is_file()
    assert not (alice / "shared/_pending/use-postgres-16.md").exists()
    log = (alice / "shared/_review-log.jsonl").read_text(encoding="utf-8")
    assert '"action": "approve"' in log and '"by": "alice-test"' in log


def test_reject_keeps_the_atom_with_the_reason(team: dict[str, Path]) -> None:
    alice = team["alice"]
    write_atom(
        alice,
        "shared/_pending/use-mongo.md",
        atom_text("use-mongo", type_="decision", body="- Always use MongoDB 7 for logs."),
    )
    assert commit(alice)[0] == 0
    no_reason = memkit("review", "reject", "use-mongo", cwd=alice)
    assert no_reason.returncode == 2
    result = memkit(
        "review", "reject", "use-mongo", "--reason", "we standardise on Postgres", cwd=alice
    )
    assert result.returncode == 0, result.stderr
    rc, out = commit(alice, "review: reject use-mongo")
    assert rc == 0, out
    rejected = (alice / "archive/rejected/use-mongo.md").read_text(encoding="utf-8")
    assert "status: archived" in rejected
    assert "rejected_reason: we standardise on Postgres" in rejected
    assert "- Always use MongoDB 7 for logs." in rejected
    entries = (alice / "shared/_review-log.jsonl").read_text(encoding="utf-8").splitlines()
    assert '"reason": "we standardise on Postgres"' in entries[-1]
    assert memkit("review", "list", cwd=alice).stdout.strip() == "nothing is waiting for review"


def test_ci_actor_overrides_the_commit_author(team: dict[str, Path]) -> None:
    alice = team["alice"]
    write_atom(alice, "roles/art/x.md", atom_text("x"))
    git(alice, "add", "-A")
    as_bob = memkit("roles", "check", "--actor", "bob", cwd=alice)
    assert as_bob.returncode == 0, as_bob.stdout
    as_carol = memkit("roles", "check", "--actor", "carol@example.com", cwd=alice)
    assert as_carol.returncode == 1
    assert "MK201" in as_carol.stdout


def test_memkit_add_sends_a_sensitive_atom_to_review(team: dict[str, Path]) -> None:
    bob, alice = team["bob"], team["alice"]
    text = "We decided: new services use PostgreSQL 16; the ops team supports only v16."
    added = memkit("add", text, "--type", "decision", "--title", "Postgres 16", cwd=bob)
    assert added.returncode == 0, added.stdout + added.stderr
    assert "memkit review approve postgres-16" in added.stdout
    assert (bob / "shared/_pending/postgres-16.md").is_file()
    rc, out = commit(bob)  # what a commit would refuse in shared/ goes in through review
    assert rc == 0, out
    # Management writes straight into shared/.
    added = memkit("add", text, "--type", "decision", "--title", "Postgres 16 again", cwd=alice)
    assert added.returncode == 0, added.stdout + added.stderr
    assert (alice / "shared/postgres-16-again.md").is_file()


def test_memkit_add_refuses_what_the_commit_would(team: dict[str, Path]) -> None:
    carol, bob = team["carol"], team["bob"]
    text = "Export texture atlases at 2048 px for mobile builds, never 4096 px."
    # carol is not in art: roles/art/ is refused now, not at her next commit.
    refused = memkit("add", text, "--scope", "role:art", "--title", "Atlas size", cwd=carol)
    assert refused.returncode == 1, refused.stdout
    assert "MK201" in refused.stdout
    assert not (carol / "roles/art/atlas-size.md").exists()
    added = memkit("add", text, "--scope", "role:art", "--title", "Atlas size", cwd=bob)
    assert added.returncode == 0, added.stdout + added.stderr
    assert (bob / "roles/art/atlas-size.md").is_file()
    theirs = memkit("add", text, "--scope", "personal:bob", "--title", "Bob's note", cwd=carol)
    assert theirs.returncode == 1 and "MK202" in theirs.stdout
