"""`memkit roles add`: management lists a member in one command, the file kept round-trip."""

from __future__ import annotations

from pathlib import Path

import pytest

from memkit.errors import MemkitError
from memkit.roles import parse_roles
from memkit.whitelist import add_member
from tests.helpers import atom_text, git, join_clone, make_memory_repo, memkit, write_atom

TABLE = """# Roles

Who may write where. Keep this table sorted by name.

| user | email | roles | since |
|:-----|-------|-------|-------|
| alice | alice@example.com | management | 2025 |

Notes below the table stay where they are.
"""
YAML = """# Roles

```yaml
users:
  # the founder
  alice:
    email: alice@example.com
    roles: [management]
```
"""


def test_a_new_member_is_a_new_row_and_nothing_else_moves() -> None:
    edited = add_member(TABLE, "Bob", ["bob@example.com"], ["art"])
    assert edited == TABLE.replace("| 2025 |\n", "| 2025 |\n| bob | bob@example.com | art |  |\n")
    bob = parse_roles(edited).find("bob@example.com")
    assert bob is not None
    assert bob.roles == {"art"}


def test_a_listed_member_gets_more_roles_and_emails() -> None:
    edited = add_member(TABLE, "alice", ["a@example.org"], ["art", "management"])
    assert "| alice | alice@example.com, a@example.org | management, art | 2025 |" in edited
    assert edited.count("\n") == TABLE.count("\n")
    assert add_member(edited, "alice", [], ["art"]) == edited


def test_the_yaml_form_keeps_comments_and_style() -> None:
    edited = add_member(YAML, "bob", ["bob@example.com"], ["art"])
    assert "  # the founder\n  alice:\n    email: alice@example.com\n" in edited
    assert "    roles: [management]\n" in edited
    assert "  bob:\n    email: bob@example.com\n    roles: [art]\n```\n" in edited
    edited = add_member(edited, "alice", [], ["programmer"])
    assert "    roles: [management, programmer]\n" in edited


def test_an_email_belongs_to_one_member() -> None:
    with pytest.raises(MemkitError, match="already belongs to `alice`"):
        add_member(TABLE, "mallory", ["alice@example.com"], ["art"])


def test_management_adds_a_member_who_then_has_the_role(tmp_path: Path) -> None:
    alice = make_memory_repo(tmp_path / "alice")
    result = memkit(
        "roles", "add", "bob", "--email", "bob@example.com", "--role", "programmer", cwd=alice
    )
    assert result.returncode == 0, result.stderr
    assert "`bob` <bob@example.com>, roles: programmer" in result.stdout
    commit = git(alice, "commit", "-m", "roles: bob", "shared/_roles.md", check=False)
    assert commit.returncode == 0, commit.stdout + commit.stderr

    bob = tmp_path / "bob"
    joined = join_clone(alice, bob, "bob@example.com")
    assert "gives you: programmer" in joined.stdout
    assert (
        (bob / "personal/bob/role.md").read_text(encoding="utf-8").endswith("roles: [programmer]\n")
    )
    write_atom(
        bob,
        "roles/programmer/lint.md",
        atom_text("lint", body="- Always run `make lint` before pushing; CI takes 2 minutes."),
    )
    git(bob, "add", "-A")
    committed = git(bob, "commit", "-m", "memory: lint", check=False)
    assert committed.returncode == 0, committed.stdout + committed.stderr

    # Bob is not management: he cannot list anyone, not even himself again.
    refused = memkit("roles", "add", "eve", "--role", "art", cwd=bob)
    assert refused.returncode == 1
    assert "only management may change shared/_roles.md (you are `bob`" in refused.stderr
    assert "eve" not in (bob / "shared/_roles.md").read_text(encoding="utf-8")


def test_a_member_listed_as_management_declares_it_themselves(tmp_path: Path) -> None:
    alice = make_memory_repo(tmp_path / "alice")
    added = memkit(
        "roles", "add", "carol", "--email", "carol@example.com", "--role", "management", cwd=alice
    )
    assert added.returncode == 0, added.stderr
    assert "declare it in personal/carol/role.md" in added.stdout
    git(alice, "commit", "-m", "roles: carol", "shared/_roles.md")
    carol = tmp_path / "carol"
    joined = join_clone(alice, carol, "carol@example.com")
    assert "to act as management, declare it yourself" in joined.stdout
    assert "management: no" in memkit("roles", "whoami", cwd=carol).stdout
    joined = memkit("init", "--join", cwd=tmp_path / "carol")  # again: keeps her file
    assert "wrote" not in joined.stdout
    (carol / "personal/carol/role.md").unlink()
    assert memkit("init", "--join", "--role", "management", cwd=carol).returncode == 0
    assert "management: yes" in memkit("roles", "whoami", cwd=carol).stdout
