"""Every finding code that suggests a command, met by each role that can meet it, and the
walk that follows the printed command to a clean state.

A case builds the state that raises its code (real files, real commits, a real pull request)
and returns what the person saw: the commit's hook output, or CI's. The walk then runs
exactly the command the message gives (parsed from it, never written here), as the person it
is meant for, and commits again through the hooks — never `--no-verify` — or, for CI,
commits, pushes and asks CI again. The finding must be gone; if something else is then
refused, its own command is followed once more, and no command may come back.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import atom_text, git, memkit, write_atom
from tests.hints.team import (
    ARGO,
    COMMAND,
    LINT,
    PNPM,
    Hint,
    Team,
    codes_in,
    commit,
    copy_team,
    hints,
    made_team,
    run_ci,
    run_command,
    sneak,
)
from tests.safety.held_for_review_test import ATOM as HELD_ATOM
from tests.safety.held_for_review_test import HELD

ROLES = ("management", "member", "newcomer", "CI")
USER = {"management": "alice", "member": "bob", "newcomer": "carol"}


@dataclass(frozen=True)
class Met:
    """What the person saw, and where they stand."""

    output: str
    person: Path
    branch: str = ""  # CI: the pull request's branch (the person's clone has it checked out)
    actor: str = ""  # CI: the pull request's author


@dataclass(frozen=True)
class Case:
    code: str
    role: str  # management | member | newcomer | CI
    variant: str
    meet: Callable[[Team], Met]

    @property
    def name(self) -> str:
        return f"{self.code}-{self.role}-{self.variant}"


# The states, one function each: (team, person's role) -> what they saw.

NEW_DECISION = atom_text(
    "use-bun",
    title="Scripts run with bun",
    type_="decision",
    body="- Every script in tools/ runs with bun 1.1; never with node directly.",
    extra="triggers: [bun, tools scripts]\n",
)
NPM_OVER_PNPM = atom_text(
    "use-npm",
    title="Use npm as the package manager",
    type_="decision",
    confidence="fixed",
    body="- Every JavaScript project installs its packages with npm 10; never pnpm or yarn.",
    extra="triggers: [npm, package manager]\nsupersedes: [use-pnpm]\n",
)
REDIS_NEWER = atom_text(
    "redis-port-6381",
    title="Redis listens on port 6381",
    body="- The cache Redis listens on port 6381 since the March move; clients use 6381.",
    created="2026-03-10",
    extra="triggers: [redis port]\nsupersedes: [redis-port-6380]\n",
)


def local(change: Callable[[Path], object]) -> Callable[[Team, str], Met]:
    """A state made in the person's own clone and met at their commit."""

    def meet(team: Team, role: str) -> Met:
        person = team.person(role)
        change(person)
        _, out = commit(person, f"{role}'s change")
        return Met(out, person)

    return meet


def in_pull_request(change: Callable[[Path], object]) -> Callable[[Team, str], Met]:
    """A member's pull request that went past the local hooks (`--no-verify`), met in CI."""

    def meet(team: Team, role: str) -> Met:
        del role
        bob = team.bob
        git(bob, "checkout", "--quiet", "-b", "change")
        change(bob)
        sneak(bob, "a change past the hooks")
        git(bob, "push", "--quiet", "-u", "origin", "change")
        out = run_ci(team, "change", "bob")[1]
        return Met(out, bob, "change", "bob")

    return meet


def long_memory_md(repo: Path) -> None:
    lines = "".join(f"- note {n}: see shared/\n" for n in range(40))
    (repo / "MEMORY.md").write_text(f"# Memory\n\n{lines}", encoding="utf-8")


def new_fact_superseding(repo: Path) -> None:
    write_atom(repo, "shared/redis-port-6381.md", REDIS_NEWER)


def new_decision_superseding(repo: Path) -> None:
    write_atom(repo, "shared/use-npm.md", NPM_OVER_PNPM)


def delete_superseded_fact(repo: Path) -> None:
    git(repo, "rm", "--quiet", "shared/redis-port-6379.md")


def contradicting_decision(repo: Path) -> None:
    write_atom(repo, "shared/deploys-go-through-argo-cd.md", ARGO)


def role_atom(role: str) -> Callable[[Path], object]:
    return lambda repo: write_atom(repo, f"roles/{role}/lint-before-push.md", LINT)


def new_decision(repo: Path) -> None:
    write_atom(repo, "shared/use-bun.md", NEW_DECISION)


def edit_approved(repo: Path) -> None:
    path = repo / "shared/use-pnpm.md"
    path.write_text(PNPM.replace("pnpm 9", "pnpm 10"), encoding="utf-8")


def delete_approved(repo: Path) -> None:
    git(repo, "rm", "--quiet", "shared/use-pnpm.md")


def rename_approved(repo: Path) -> None:
    git(repo, "mv", "shared/use-pnpm.md", "shared/pnpm.md")


def archive_approved(repo: Path) -> None:
    (repo / "archive/shared").mkdir(parents=True, exist_ok=True)
    git(repo, "mv", "shared/use-pnpm.md", "archive/shared/use-pnpm.md")


def move_approved_into_review(repo: Path) -> None:
    git(repo, "mv", "shared/use-pnpm.md", "shared/_pending/use-pnpm.md")


def new_held_order(repo: Path) -> None:
    # Reads somewhat like an order to the agent: held for a person, not refused (issue 39).
    write_atom(repo, "shared/nightly-reruns.md", HELD_ATOM)


def held_edit(repo: Path) -> None:
    path = repo / "shared/ws-heartbeat-interval.md"
    path.write_text(path.read_text(encoding="utf-8") + f"- {HELD}\n", encoding="utf-8")


def others_usage(repo: Path) -> None:
    (repo / "usage").mkdir(exist_ok=True)
    (repo / "usage/erin.json").write_text('{"user": "erin", "atoms": {}}\n', encoding="utf-8")


PASTED = atom_text(
    "grafana-dashboards",
    title="Grafana dashboards live in ops/dashboards",
    body="- The Grafana dashboards are JSON files in ops/dashboards,\u200b provisioned at deploy.",
    extra="triggers: [grafana, dashboards]\n",
)


def pasted_invisible(repo: Path) -> None:
    # A zero-width space that came with text pasted from a web page: harmless, a warning.
    write_atom(repo, "shared/grafana-dashboards.md", PASTED)


def local_state(repo: Path) -> None:
    (repo / ".memkit/notes.txt").write_text("mine\n", encoding="utf-8")
    git(repo, "add", "--force", ".memkit/notes.txt")


def _cases() -> list[Case]:
    everyone = ("management", "member", "newcomer")
    members = ("member", "newcomer")
    table: list[tuple[str, tuple[str, ...], str, Callable[[Path], object]]] = [
        ("MK014", everyone, "memory-md-too-long", long_memory_md),
        ("MK023", everyone, "fact-supersedes-live-fact", new_fact_superseding),
        ("MK023", members, "decision-supersedes-approved", new_decision_superseding),
        ("MK024", everyone, "delete-what-supersedes-names", delete_superseded_fact),
        ("MK106", everyone, "decision-contradicts-decision", contradicting_decision),
        ("MK113", everyone, "pasted-invisible", pasted_invisible),
        ("MK201", ("management",), "role-folder", role_atom("ops")),
        ("MK201", ("member",), "role-folder", role_atom("ops")),
        ("MK201", ("newcomer",), "role-folder", role_atom("programmer")),
        ("MK204", members, "new-decision", new_decision),
        ("MK204", members, "edit-approved", edit_approved),
        ("MK204", members, "rename-approved", rename_approved),
        ("MK204", members, "held-order", new_held_order),
        ("MK204", members, "held-edit", held_edit),
        ("MK205", members, "delete-approved", delete_approved),
        ("MK205", members, "move-approved-out", archive_approved),
        ("MK205", members, "move-approved-into-review", move_approved_into_review),
        ("MK207", everyone, "others-usage", others_usage),
        ("MK208", everyone, "local-state", local_state),
    ]
    ci: list[tuple[str, str, Callable[[Path], object]]] = [
        ("MK014", "memory-md-too-long", long_memory_md),
        ("MK023", "fact-supersedes-live-fact", new_fact_superseding),
        ("MK024", "delete-what-supersedes-names", delete_superseded_fact),
        ("MK113", "pasted-invisible", pasted_invisible),
        ("MK201", "role-folder", role_atom("ops")),
        ("MK204", "new-decision", new_decision),
        ("MK204", "edit-approved", edit_approved),
        ("MK204", "held-order", new_held_order),
        ("MK205", "delete-approved", delete_approved),
        ("MK205", "move-approved-out", archive_approved),
        ("MK207", "others-usage", others_usage),
        ("MK208", "local-state", local_state),
    ]
    out = []
    for code, roles, variant, change in table:
        for role in roles:
            meet = local(change)
            out.append(Case(code, role, variant, _bind(meet, role)))
    for code, variant, change in ci:
        out.append(Case(code, "CI", variant, _bind(in_pull_request(change), "CI")))
    return out


def _bind(meet: Callable[[Team, str], Met], role: str) -> Callable[[Team], Met]:
    return lambda team: meet(team, role)


CASES = _cases()


def _pull(repo: Path) -> None:
    pulled = git(repo, "pull", "--quiet", check=False)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr


def follow(team: Team, met: Met, hint: Hint) -> None:
    """Run the hint's command as whoever it names. Management's command reaches the person
    the way the team works: management commits what its command printed to commit, pushes,
    and the person pulls (CI asks again against the new base)."""
    if not hint.by_management:
        run_command(met.person, hint.command)
        return
    alice = team.alice
    _pull(alice)
    said = run_command(alice, hint.command)
    to_commit = [c for c in COMMAND.findall(said) if c.startswith("git commit")]
    assert to_commit, f"`{hint.command}` names no commit to make:\n{said}"
    run_command(alice, to_commit[0])
    git(alice, "push", "--quiet", "origin", "HEAD:main")
    if met.person != alice and not met.branch:
        _pull(met.person)


def again(team: Team, met: Met, *, warning: bool = False) -> tuple[int, str]:
    """After following: the person's commit through the hooks (for a warning, which never
    refuses a commit, also `memkit validate`: it says warnings of files the commit does not
    touch); in CI, that commit pushed and CI's answer."""
    # What the hint staged, and what it changed in tracked files (`git commit -a`): a file
    # it took out of git on purpose stays out.
    done = git(met.person, "commit", "-a", "-m", "after the hint", check=False)
    rc, out = done.returncode, done.stdout + done.stderr
    if re.search(r"nothing (added )?to commit|no changes added to commit", out):
        rc = 0
    if met.branch:
        assert rc == 0, f"the commit after the hint was refused:\n{out}"
        git(met.person, "push", "--quiet", "origin", f"HEAD:{met.branch}")
        return run_ci(team, met.branch, met.actor)
    if not warning:
        return rc, out
    return rc, out + memkit("validate", cwd=met.person).stdout


def walk(team: Team, case: Case) -> list[str]:
    """Meet the finding, follow its command (and, if the result is refused for something
    else, that finding's command), and return the commands run. Fails if the finding stays,
    a command comes back, or more than two steps are needed."""
    met = case.meet(team)
    found = hints(met.output, case.code)
    assert found, f"{case.name}: no {case.code} suggesting a command in:\n{met.output}"
    first = found[0]
    seen: list[str] = []
    hint = first
    for _ in range(2):
        assert hint.command not in seen, f"{case.name}: advice loops back to `{hint.command}`"
        seen.append(hint.command)
        follow(team, met, hint)
        rc, out = again(team, met, warning=first.message.startswith("warning: "))
        assert (first.code, first.path) not in codes_in(out), (
            f"{case.name}: {first.code} is still there after `{hint.command}`:\n{out}"
        )
        if rc == 0:
            return seen
        errors = [
            h
            for code in sorted({code for code, _ in codes_in(out)})
            for h in hints(out, code)
            if not h.message.startswith("warning: ")
        ]
        assert errors, f"{case.name}: refused after `{hint.command}`, with no command:\n{out}"
        hint = errors[0]
    raise AssertionError(f"{case.name}: still refused after two steps ({seen}):\n{out}")


def role_tests(role: str) -> tuple[Any, Any]:
    """The module fixture (a team, built once per file) and the test of one role's cases:
    each role's cases sit in a file of their own, so that test workers share them out."""
    mine = [c for c in CASES if c.role == role]

    @pytest.fixture(scope="module")
    def made(tmp_path_factory: pytest.TempPathFactory, module_home: Callable[[], Any]) -> Path:
        return made_team(tmp_path_factory, module_home, f"hints-{role.lower()}")

    @pytest.mark.parametrize("case", mine, ids=[c.name for c in mine])
    def test_the_printed_command_leads_to_a_clean_state(
        made: Path, tmp_path: Path, case: Case
    ) -> None:
        walk(copy_team(made, tmp_path), case)

    return made, test_the_printed_command_leads_to_a_clean_state
