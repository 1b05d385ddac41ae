"""What a push that skipped review could make a teammate's clone do at its next pull, or in a
fresh clone: replace the clone's state folder (a tracked `.memkit`), or have git rewrite the
memory's files as it writes them (a `.gitattributes` rule). Real git, real hooks, real pulls.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.checks.review_cannot_be_walked_around_test import DECISION
from tests.helpers import git, join_clone, make_memory_repo, memkit, write_atom


def push_past_review(repo: Path, path: str, content: bytes, message: str) -> None:
    """Commit `content` as `path` with plumbing and --no-verify, leaving the working tree
    alone (the author's own `.memkit/` folder stays where it is)."""
    blob = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"],
        cwd=repo,
        input=content,
        capture_output=True,
        check=True,
    )
    sha = blob.stdout.decode().strip()
    git(repo, "update-index", "--add", "--cacheinfo", f"100644,{sha},{path}")
    git(repo, "commit", "-q", "--no-verify", "-m", message)


def team(tmp_path: Path) -> tuple[Path, Path]:
    alice = make_memory_repo(tmp_path / "alice")
    write_atom(alice, "shared/use-postgres-16.md", DECISION)
    git(alice, "add", "-A")
    git(alice, "commit", "-q", "--no-verify", "-m", "decision")
    bob = tmp_path / "bob"
    join_clone(alice, bob, "bob@example.com")
    return alice, bob


def test_a_pushed_memkit_file_never_replaces_a_clones_state(tmp_path: Path) -> None:
    alice, bob = team(tmp_path)
    state = bob / ".memkit"
    (state / "capture").mkdir(exist_ok=True)
    (state / "capture" / "queue-marker").write_text("a waiting candidate", encoding="utf-8")
    before = git(bob, "rev-parse", "HEAD").stdout
    push_past_review(alice, ".memkit", b"x", "a one-byte .memkit")

    pulled = git(bob, "pull", "--no-rebase", check=False)
    assert pulled.returncode != 0
    assert "memkit: not fetching refs/remotes/origin/main: its tree holds .memkit" in (
        pulled.stderr
    )
    assert "git rm -r --cached .memkit" in pulled.stderr
    assert state.is_dir()
    assert (state / "capture" / "queue-marker").read_text(encoding="utf-8") == (
        "a waiting candidate"
    )
    assert git(bob, "rev-parse", "HEAD").stdout == before
    assert memkit("search", "postgres", cwd=bob).returncode == 0

    # Once management takes it out, the pull goes through.
    git(alice, "rm", "-q", "--cached", ".memkit")
    git(alice, "commit", "-q", "--no-verify", "-m", "take .memkit out")
    pulled = git(bob, "pull", "--no-rebase", "--quiet", check=False)
    assert pulled.returncode == 0, pulled.stderr
    assert (state / "capture" / "queue-marker").is_file()


def test_joining_a_clone_that_tracks_a_memkit_file_says_what_to_do(tmp_path: Path) -> None:
    alice, _ = team(tmp_path)
    push_past_review(alice, ".memkit", b"x", "a one-byte .memkit")
    carol = tmp_path / "carol"
    git(tmp_path, "clone", "--quiet", str(alice), str(carol))
    joined = memkit("init", "--join", cwd=carol)
    assert joined.returncode == 1, joined.stdout + joined.stderr
    assert "the repository tracks it" in joined.stderr
    assert "`git rm -r --cached .memkit`" in joined.stderr
    assert "internal error" not in joined.stderr


UTF16_RULE = b"shared/*.md working-tree-encoding=UTF-16LE\n"


def test_a_gitattributes_rule_never_empties_recall_in_a_fresh_clone(tmp_path: Path) -> None:
    alice, _ = team(tmp_path)
    push_past_review(alice, ".gitattributes", UTF16_RULE, "shared files as UTF-16")
    carol = tmp_path / "carol"
    git(tmp_path, "clone", "--quiet", str(alice), str(carol))
    decision = carol / "shared/use-postgres-16.md"
    assert decision.read_bytes().startswith(b"-\0-\0-\0")  # what git wrote: UTF-16
    git(carol, "config", "user.email", "carol@example.com")
    git(carol, "config", "user.name", "Carol")
    joined = memkit("init", "--join", cwd=carol)
    assert joined.returncode == 0, joined.stdout + joined.stderr
    assert decision.read_text(encoding="utf-8") == DECISION
    assert git(carol, "status", "--porcelain", "--", "shared").stdout == ""
    found = memkit("search", "postgres version", cwd=carol)
    assert "use-postgres-16" in found.stdout, found.stdout + found.stderr


def test_a_gitattributes_rule_pulled_in_rewrites_no_memory_file(tmp_path: Path) -> None:
    """Scoped to one approved decision, changed in the same push: the pull writes it."""
    alice, bob = team(tmp_path)
    rule = b"shared/use-postgres-16.md working-tree-encoding=UTF-16LE\n"
    push_past_review(alice, ".gitattributes", rule, "one file as UTF-16")
    changed = DECISION.replace("only v16.", "only v16 (and its minor releases).")
    push_past_review(alice, "shared/use-postgres-16.md", changed.encode(), "touch it")
    pulled = git(bob, "pull", "--no-rebase", "--quiet", check=False)
    assert pulled.returncode == 0, pulled.stderr
    assert (bob / "shared/use-postgres-16.md").read_text(encoding="utf-8") == changed
    found = memkit("search", "postgres version", cwd=bob)
    assert "use-postgres-16" in found.stdout, found.stdout + found.stderr


def test_an_older_clone_gets_the_guard_at_its_next_checkout(tmp_path: Path) -> None:
    _, bob = team(tmp_path)
    hook = Path(git(bob, "rev-parse", "--git-path", "hooks/reference-transaction").stdout.strip())
    (bob / hook).unlink()
    attributes = bob / ".git/info/attributes"
    attributes.unlink()
    git(bob, "checkout", "-q", "-b", "elsewhere")  # post-checkout: `memkit index --quiet`
    assert (bob / hook).is_file()
    assert "-working-tree-encoding" in attributes.read_text(encoding="utf-8")


def test_a_pull_request_adding_a_memkit_file_fails_for_everyone(tmp_path: Path) -> None:
    """Review refuses it first: a member's pull request, and management's too (MK208)."""
    _, bob = team(tmp_path)
    git(bob, "checkout", "-q", "-b", "feature")
    push_past_review(bob, ".memkit", b"x", "a one-byte .memkit")
    for actor in ("bob", "alice-test"):
        result = memkit("ci", "--base", "origin/main", "--actor", actor, "--no-evals", cwd=bob)
        assert result.returncode == 1, result.stdout + result.stderr
        assert ".memkit:1:1: MK208 .memkit/ is this clone's own derived state" in result.stdout
        assert "a teammate's next pull would delete their own .memkit/ folder" in result.stdout
