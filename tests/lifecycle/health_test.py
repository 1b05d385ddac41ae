"""`memkit health` names every kind of problem with the command that fixes it, and following
each command makes its line go away (issue 16)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from memkit.recall.usage import usage_log
from tests.helpers import atom_text, git, make_memory_repo, memkit, write_atom
from tests.lifecycle.team_lifecycle_test import TODAY, commit, team

__all__ = ["team"]  # the fixture, shared with the lifecycle tests


def checks(repo: Path) -> dict[str, dict[str, object]]:
    result = memkit("health", "--json", cwd=repo)
    assert result.returncode == 0, result.stderr
    return {c["kind"]: c for c in json.loads(result.stdout)["checks"]}


def make_every_problem(repo: Path) -> None:
    """One of each kind, on top of the team's three atoms (one of them unused since 2025)."""
    fresh = {"created": TODAY}
    write_atom(
        repo,
        "shared/standup-room.md",
        atom_text(
            "standup-room",
            body="- The sprint standup is in room 4 until the move (see rooms.yaml).",
            extra="expires: 2026-02-01\n",
            **fresh,
        ),
    )
    write_atom(
        repo,
        "shared/ws-heartbeat-90s.md",
        atom_text(
            "ws-heartbeat-90s",
            title="WebSocket heartbeat 90 s",
            body="- Send a WebSocket ping every 90 s; the balancer drops idle sockets at 60 s.",
            extra="triggers: [websocket, heartbeat]\n",
            **fresh,
        ),
    )
    write_atom(
        repo,
        "shared/retry-budget-v2.md",
        atom_text(
            "retry-budget-v2",
            body="- The payments client retries 3 times with a 200 ms backoff (client.yaml).",
            extra="supersedes: [deploy-window]\n",
            confidence="tentative",
            **fresh,
        ),
    )
    write_atom(
        repo,
        "shared/_pending/payments-owner.md",
        atom_text(
            "payments-owner",
            type_="decision",
            body="- Team Atlas owns the payments service from Q3 (services.yaml).",
            **fresh,
        ),
    )
    write_atom(repo, "shared/broken.md", "---\nid: broken\n---\n# No type, no date\n\nbody\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "a teammate's commit, hooks skipped")
    assert memkit("audit", "--all", cwd=repo).returncode == 1  # the conflict is reported
    assert memkit("index", cwd=repo).returncode == 0
    with usage_log(repo) as log:
        # This clone has counted usage for 200 days; the heartbeat was last used then.
        log.record("long-ago", ["ws-heartbeat"], now=time.time() - 200 * 86400)
        for back, sid in enumerate(("p1", "p2")):  # used in answers on two days: earns one
            when = time.time() - back * 86400
            log.record(sid, ["retry-budget-v2"], now=when)
            log.note(sid, ["retry-budget-v2"], "answered", now=when)
        for sid in ("x1", "x2"):  # contradicted in use
            log.record(sid, ["standup-room"])
            log.note(sid, ["standup-room"], "contradicted")
    (repo / "usage").mkdir()
    (repo / "usage/bob.json").write_text('{"memkit_usage": 7}\n', encoding="utf-8")
    # Written after the index: the index is behind the working tree.
    write_atom(
        repo,
        "shared/kafka-partitions.md",
        atom_text(
            "kafka-partitions",
            body="- The kafka orders topic has 12 partitions (config/topics.yaml).",
            **fresh,
        ),
    )


def test_health_lists_each_kind_of_problem_with_its_fixing_command(team: Path) -> None:
    make_every_problem(team)
    found = checks(team)
    expected = {
        "unused": (["old-build-server", "ws-heartbeat"], "memkit archive --suggest"),
        "expired": (["standup-room"], "memkit archive --sweep"),
        "promote": (["retry-budget-v2 (tentative -> observed)"], "memkit promote --apply"),
        "archive": (["old-build-server", "ws-heartbeat"], "memkit archive --apply IDS"),
        "disputed": (["standup-room"], "memkit show ID"),
        "conflicts": (
            ["ws-heartbeat vs ws-heartbeat-90s (contradicts)"],
            "memkit validate --fix",
        ),
        "superseded": (["deploy-window (by retry-budget-v2)"], "memkit validate --fix"),
        "pending": (["payments-owner"], "memkit review list"),
        "invalid": (["shared/broken.md"], "memkit validate"),
        "usage": (
            ['usage/bob.json: not a memkit usage export (expected "memkit_usage": 1)'],
            "memkit usage export --write",
        ),
    }
    for kind, (items, fix) in expected.items():
        assert found[kind]["items"] == items, kind
        assert fix in str(found[kind]["fix"]), kind
    assert found["index"]["note"] == "behind the working tree"
    assert found["index"]["fix"] == "memkit index"

    text = memkit("health", cwd=team).stdout
    assert "!!  past their `expires` date: 1: standup-room\n      -> memkit archive --sweep" in text
    assert "!!  search index: behind the working tree\n      -> memkit index" in text
    markdown = memkit("health", "--markdown", cwd=team).stdout
    assert "| ⚠️ | waiting for review | 1: payments-owner | memkit review list |" in markdown

    # Each command clears its line.
    assert memkit("archive", "--sweep", cwd=team).returncode == 0
    assert memkit("promote", "--apply", cwd=team).returncode == 0
    archived = memkit("archive", "--apply", "old-build-server", "ws-heartbeat", cwd=team)
    assert archived.returncode == 0, archived.stderr
    assert memkit("validate", "--fix", cwd=team).returncode == 1  # broken.md still fails
    (team / "shared/broken.md").unlink()
    (team / "usage/bob.json").unlink()
    write_atom(
        team,
        "shared/ws-heartbeat-90s.md",
        (team / "shared/ws-heartbeat-90s.md")
        .read_text(encoding="utf-8")
        .replace("triggers:", "supersedes: [ws-heartbeat]\ntriggers:"),
    )
    assert memkit("index", cwd=team).returncode == 0
    after = checks(team)
    for kind in ("expired", "promote", "archive", "superseded", "invalid", "usage", "index"):
        assert after[kind]["items"] == [] and not after[kind]["note"], (kind, after[kind])
    assert after["conflicts"]["items"] == []  # settled by `supersedes:`, even uncommitted
    assert after["unused"]["items"] == []
    git(team, "add", "-A")
    done = commit(team, "memory: lifecycle clean-up")
    assert done.returncode == 0, done.stdout + done.stderr


def test_health_asks_for_one_full_audit_when_the_rules_have_changed(tmp_path: Path) -> None:
    """A pull audits only what it brings: after an upgrade whose contradiction rules see more,
    the memory already there needs one `memkit audit --all`, and health says so until then."""
    from memkit.audit.classify import RULES

    repo = make_memory_repo(tmp_path / "memory")
    write_atom(repo, "shared/ws-heartbeat.md", atom_text("ws-heartbeat"))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "one")
    assert checks(repo)["rules"]["items"] == []  # no report yet: nothing to ask

    assert memkit("audit", "--from", "HEAD~1", "--to", "HEAD", cwd=repo).returncode == 0
    asked = checks(repo)["rules"]
    assert asked["items"] == [f"no full audit yet; these are rules {RULES}"], asked
    assert asked["fix"] == "memkit audit --all"
    assert (
        "!!  memory audited in full with today's contradiction rules"
        in memkit("health", cwd=repo).stdout
    )

    assert memkit("audit", "--all", cwd=repo).returncode == 0
    assert checks(repo)["rules"]["items"] == []
    # A later pull keeps what the full audit ran with.
    assert memkit("audit", "--from", "HEAD~1", "--to", "HEAD", cwd=repo).returncode == 0
    assert checks(repo)["rules"]["items"] == []

    # A report from a memkit with older rules.
    report = repo / ".memkit/audit/last.json"
    report.write_text(
        report.read_text(encoding="utf-8").replace(
            f'"full_audit_rules": {RULES}', f'"full_audit_rules": {RULES - 1}'
        ),
        encoding="utf-8",
    )
    assert checks(repo)["rules"]["items"] == [
        f"the last full audit ran with rules {RULES - 1}; these are rules {RULES}"
    ]
