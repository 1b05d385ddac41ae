"""The team's second week, walked as two people would: real git, real pre-commit hooks, a bare
remote. A member changes an approved decision and proposes a new one that contradicts
another; management approves both in one step each (the change written over the decision it
revises, the new one retiring the other); both clones pull and the old text is never injected
again. Every refusal on the way names a command, and running it
is accepted (no advice leads back to a refusal).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import (
    atom_text,
    context,
    copy_made,
    git,
    join_clone,
    make_memory_repo,
    memkit,
    run_hook,
    write_atom,
)
from tests.hints.team import HELM, PNPM

ARGO = (
    "We moved deploys from helm to Argo CD: production deploys are Argo CD applications "
    "synced from the deploy/ folder."
)
# A command a refusal suggests: `memkit …` or `git mv …` in backticks.
_COMMAND = re.compile(r"`((?:memkit|git mv) [^`]+)`")


def commit(repo: Path, message: str = "memory") -> tuple[int, str]:
    git(repo, "add", "-A")
    done = git(repo, "commit", "-m", message, check=False)
    return done.returncode, done.stdout + done.stderr


def suggested(refusal: str) -> str:
    """The one command a refusal names (the first `memkit …`/`git mv …` in backticks)."""
    found = _COMMAND.search(refusal)
    assert found is not None, f"the refusal names no command:\n{refusal}"
    return found.group(1)


def run_suggestion(repo: Path, command: str) -> str:
    words = command.split()
    if words[0] == "memkit":
        done = memkit(*words[1:], cwd=repo)
    else:
        done = git(repo, *words[1:], check=False)
    assert done.returncode == 0, f"`{command}` was refused:\n{done.stdout}{done.stderr}"
    return done.stdout


def follow(repo: Path, refusal: str, seen: list[str]) -> None:
    """Run the command `refusal` suggests, never one suggested before on this walk."""
    command = suggested(refusal)
    assert command not in seen, f"advice loops back to `{command}`:\n{refusal}"
    seen.append(command)
    run_suggestion(repo, command)


@pytest.fixture(scope="module")
def made_team(tmp_path_factory: pytest.TempPathFactory, module_home: Callable[[], Any]) -> Path:
    """A bare remote; alice (management) made the memory with two approved decisions and
    listed bob; bob joined and committed his declaration."""
    tmp_path = tmp_path_factory.mktemp("walk")
    with module_home():
        remote = tmp_path / "remote.git"
        git(tmp_path, "init", "--quiet", "--bare", "--initial-branch=main", str(remote))
        alice = make_memory_repo(tmp_path / "alice")
        write_atom(alice, "shared/use-pnpm.md", PNPM)
        write_atom(alice, "shared/deploy-with-helm.md", HELM)
        added = memkit(
            "roles", "add", "bob", "--email", "bob@example.com", "--role", "programmer", cwd=alice
        )
        assert added.returncode == 0, added.stderr
        rc, out = commit(alice, "decisions, bob")
        assert rc == 0, out
        git(alice, "remote", "add", "origin", str(remote))
        git(alice, "push", "--quiet", "-u", "origin", "HEAD:main")
        bob = tmp_path / "bob"
        join_clone(remote, bob, "bob@example.com")
        rc, out = commit(bob, "role: bob")
        assert rc == 0, out
        git(bob, "push", "--quiet", "origin", "HEAD:main")
        git(alice, "pull", "--quiet", "--no-rebase", "origin", "main")
    return tmp_path


@pytest.fixture
def team(made_team: Path, tmp_path: Path) -> tuple[Path, Path]:
    copy_made(made_team, tmp_path)
    return tmp_path / "alice", tmp_path / "bob"


def prompt(repo: Path, session: str, text: str) -> str:
    payload = {
        "session_id": session,
        "cwd": str(repo),
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
    }
    done = run_hook("user-prompt-submit", payload, repo)
    return context(done, "UserPromptSubmit") if done.stdout else ""


def test_a_member_changes_a_decision_and_management_approves_it_in_one_step(
    team: tuple[Path, Path],
) -> None:
    alice, bob = team
    seen: list[str] = []
    # Bob edits the approved decision as anyone would: the commit refuses, naming the command.
    path = bob / "shared/use-pnpm.md"
    path.write_text(path.read_text(encoding="utf-8").replace("pnpm 9", "pnpm 10"), encoding="utf-8")
    rc, refusal = commit(bob, "pnpm 10")
    assert rc == 1 and "MK204" in refusal
    follow(bob, refusal, seen)
    assert "pnpm 9" in path.read_text(encoding="utf-8")  # the approved one is back
    proposal = bob / "shared/_pending/use-pnpm-2.md"
    assert "pnpm 10" in proposal.read_text(encoding="utf-8")
    rc, out = commit(bob, "review: propose use-pnpm-2")
    assert rc == 0, out

    # Bob's new decision contradicts another one; it goes to review, saying so.
    added = memkit(
        "add", "--type", "decision", "--title", "Deploys go through Argo CD", ARGO, cwd=bob
    )
    assert added.returncode == 0, added.stdout + added.stderr
    assert "contradicts `deploy-with-helm`" in added.stdout
    argo = next((bob / "shared/_pending").glob("deploys-go-through-argo-cd*.md")).stem
    rc, out = commit(bob, "propose argo")
    assert rc == 0, out
    git(bob, "push", "--quiet", "origin", "HEAD:main")

    # Alice sees every finding before she decides.
    git(alice, "pull", "--quiet", "--no-rebase", "origin", "main")
    shown = memkit("review", "show", argo, cwd=alice).stdout
    assert "contradicts `deploy-with-helm`" in shown
    assert f"memkit review approve {argo} --supersedes deploy-with-helm" in shown
    shown = memkit("review", "show", "use-pnpm-2", cwd=alice).stdout
    assert "a new version of `use-pnpm`: approving it writes it over shared/use-pnpm.md" in shown

    # Approving the contradicting one plainly is refused before anything moves, naming the
    # command that works; that command's commit passes.
    plain = memkit("review", "approve", argo, cwd=alice)
    assert plain.returncode == 1
    assert git(alice, "status", "--porcelain").stdout == ""
    follow(alice, plain.stderr, seen)
    rc, out = commit(alice, f"review: approve {argo}")
    assert rc == 0, out
    approved = memkit("review", "approve", "use-pnpm-2", cwd=alice)
    assert approved.returncode == 0, approved.stderr
    # A change to an approved atom is written over it: one id, one history.
    assert "as the new text of `use-pnpm`" in approved.stdout
    rc, out = commit(alice, "review: approve use-pnpm-2")
    assert rc == 0, out
    pnpm = (alice / "shared/use-pnpm.md").read_text(encoding="utf-8")
    assert "id: use-pnpm\n" in pnpm and "pnpm 10" in pnpm and "supersedes" not in pnpm
    assert not (alice / "shared/use-pnpm-2.md").exists()
    assert len(git(alice, "log", "--format=%h", "--", "shared/use-pnpm.md").stdout.split()) == 2
    text = (alice / "shared/deploy-with-helm.md").read_text(encoding="utf-8")
    assert "status: superseded" in text and f"superseded_by: [{argo}]" in text
    assert "MK023" not in memkit("validate", cwd=alice).stdout
    git(alice, "push", "--quiet", "origin", "HEAD:main")

    # Both clones pull; neither ever injects the old text again.
    git(bob, "pull", "--quiet", "--no-rebase", "origin", "main")
    for repo in (alice, bob):
        text = prompt(repo, f"{repo.name}-1", "which package manager do we use, pnpm?")
        assert "## use-pnpm ·" in text and "pnpm 10" in text and "pnpm 9" not in text, text
        text = prompt(repo, f"{repo.name}-2", "how do production deploys work, helm?")
        assert "## deploy-with-helm" not in text
        index = context(
            run_hook(
                "session-start", {"session_id": "s", "cwd": str(repo), "source": "startup"}, repo
            ),
            "SessionStart",
        )
        assert "- use-pnpm-2 ·" not in index and "- deploy-with-helm ·" not in index
        assert memkit("review", cwd=repo).stdout.strip() == "nothing is waiting for review"


# Each way a member may try to change an approved decision, and the refusal it meets.
ATTEMPTS: dict[str, Callable[[Path], object]] = {
    "edit": lambda bob: (bob / "shared/use-pnpm.md").write_text(
        PNPM.replace("pnpm 9", "pnpm 10"), encoding="utf-8"
    ),
    "move-back-into-review": lambda bob: git(
        bob, "mv", "shared/use-pnpm.md", "shared/_pending/use-pnpm.md"
    ),
    "edit-and-move-back": lambda bob: (
        (bob / "shared/use-pnpm.md").write_text(
            PNPM.replace("pnpm 9", "pnpm 10"), encoding="utf-8"
        ),
        git(bob, "mv", "-f", "shared/use-pnpm.md", "shared/_pending/use-pnpm.md"),
    ),
    "delete": lambda bob: git(bob, "rm", "--quiet", "shared/use-pnpm.md"),
    "retype": lambda bob: (bob / "shared/use-pnpm.md").write_text(
        PNPM.replace("type: decision", "type: fact"), encoding="utf-8"
    ),
    "move-elsewhere": lambda bob: git(bob, "mv", "shared/use-pnpm.md", "shared/pnpm.md"),
    "new-decision": lambda bob: write_atom(
        bob,
        "shared/use-bun.md",
        atom_text("use-bun", type_="decision", body="- Scripts in tools/ run with bun 1.1."),
    ),
}


@pytest.mark.parametrize("attempt", sorted(ATTEMPTS))
def test_every_refusal_names_a_command_that_is_accepted(
    team: tuple[Path, Path], attempt: str
) -> None:
    _, bob = team
    ATTEMPTS[attempt](bob)
    seen: list[str] = []
    for _ in range(3):
        rc, out = commit(bob, attempt)
        if rc == 0 or "nothing to commit, working tree clean" in out:  # put back as it was
            break
        follow(bob, out, seen)
    assert rc == 0 or not seen[0].startswith("memkit"), out
    assert len(seen) == 1, seen  # one suggestion, and it was enough
    assert git(bob, "cat-file", "-e", "HEAD:shared/use-pnpm.md", check=False).returncode == 0


def test_management_writing_a_contradicting_decision_is_told_the_one_step(
    team: tuple[Path, Path],
) -> None:
    alice, _ = team
    write_atom(
        alice,
        "shared/deploys-go-through-argo-cd.md",
        atom_text(
            "deploys-go-through-argo-cd",
            title="Deploys go through Argo CD",
            type_="decision",
            body=ARGO,
            extra="triggers: [deploy, argo]\n",
        ),
    )
    seen: list[str] = []
    rc, out = commit(alice, "argo")
    assert rc == 1 and "MK106" in out
    follow(alice, out, seen)
    assert (
        seen[0].startswith("memkit review approve ") and "--supersedes deploy-with-helm" in seen[0]
    )
    rc, out = commit(alice, "argo")
    assert rc == 0, out
    assert "status: superseded" in (alice / "shared/deploy-with-helm.md").read_text(
        encoding="utf-8"
    )


def test_review_show_names_a_duplicate_and_the_step_that_settles_it(
    team: tuple[Path, Path],
) -> None:
    alice, bob = team
    # A copy of an approved decision that reached review past the hooks (--no-verify).
    copy = PNPM.replace("id: use-pnpm", "id: pnpm-everywhere")
    write_atom(bob, "shared/_pending/pnpm-everywhere.md", copy)
    git(bob, "add", "-A")
    git(bob, "commit", "-q", "--no-verify", "-m", "pnpm again")
    git(bob, "push", "--quiet", "origin", "HEAD:main")
    git(alice, "pull", "--quiet", "--no-rebase", "origin", "main")
    shown = memkit("review", "show", "pnpm-everywhere", cwd=alice)
    assert shown.returncode == 0, shown.stderr
    assert "duplicate of `use-pnpm`" in shown.stdout, shown.stdout
    seen: list[str] = []
    follow(alice, shown.stdout.split("--- what the checks find", 1)[1], seen)
    assert seen == ["memkit review approve pnpm-everywhere --supersedes use-pnpm"]
    rc, out = commit(alice, "review: approve pnpm-everywhere")
    assert rc == 0, out
