"""The lifecycle (issue 16), as a team meets it: real git, real pre-commit, real hooks, the
real usage log. Confirmations promote; unused and expired atoms are archived, not injected,
and restored; `health` names each problem with the command that fixes it."""

from __future__ import annotations

import datetime as dt
import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from memkit.recall.usage import usage_log
from tests.helpers import (
    atom_text,
    commit_and_index,
    git,
    make_memory_repo,
    memkit,
    run_hook,
    write_atom,
)

TODAY = dt.date.today().isoformat()
HEARTBEAT = """---
id: ws-heartbeat
type: pitfall
# how sure the team is, in the seeds' words
confidence: "tentative"   # 臨 until sessions confirm it
created: 2026-02-08
triggers: [websocket, heartbeat]
---
# WebSocket heartbeat

- Send a WebSocket ping every 30 s; the balancer drops idle sockets at 60 s.
"""
DEPLOY = atom_text(
    "deploy-window",
    title="Deploy window",
    body="- Every payments deploy needs a canary of 30 min before full rollout.",
    confidence="tentative",
    created=TODAY,
    extra="triggers: [deploy]\n",
)
OLD_SERVER = atom_text(
    "old-build-server",
    title="Old build server",
    body="- The nightly Jenkins build runs on host ci-old with Jenkins 1.6.",
    created="2025-01-02",
    extra="triggers: [jenkins]\n",
)


def session(repo: Path, sid: str, prompt: str, answer: str) -> str:
    """One turn of a session: the prompt's hook, then Stop with the turn's answer."""
    payload = {"session_id": sid, "cwd": str(repo), "prompt": prompt}
    given = run_hook("user-prompt-submit", payload, repo).stdout
    stop = {"session_id": sid, "cwd": str(repo), "last_assistant_message": answer}
    assert run_hook("stop", stop, repo).stdout == ""
    return given


def run_json(repo: Path, *args: str) -> dict[str, Any]:
    """`memkit ARGS --json`: each command's own report (promote, archive, health)."""
    result = memkit(*args, "--json", cwd=repo)
    assert result.returncode == 0, result.stdout + result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def commit(repo: Path, message: str) -> subprocess.CompletedProcess[str]:
    """`git commit` through the repository's real pre-commit hooks."""
    return git(repo, "commit", "-q", "-m", message, check=False)


_TEMPLATE: list[Path] = []


@pytest.fixture
def team(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    """A fresh copy of the team's repository (git, hooks, index) for each test; the first
    is built inside its test's isolated home (conftest), then copied."""
    if not _TEMPLATE:
        repo = make_memory_repo(tmp_path_factory.mktemp("template") / "team")
        write_atom(repo, "shared/ws-heartbeat.md", HEARTBEAT)
        write_atom(repo, "shared/deploy-window.md", DEPLOY)
        write_atom(repo, "shared/old-build-server.md", OLD_SERVER)
        commit_and_index(repo)
        _TEMPLATE.append(repo)
    repo = tmp_path / "team"
    shutil.copytree(_TEMPLATE[0], repo, symlinks=True)
    return repo


def backdate(repo: Path, sid: str, days: int) -> None:
    """Move a session's evidence `days` back: the sessions of this test ran within a minute,
    the team's ran on different days."""
    import sqlite3

    db = sqlite3.connect(repo / ".memkit/usage.db")
    with db:
        db.execute("UPDATE evidence SET ts = ts - ? WHERE session = ?", (days * 86400, sid))
    db.close()


PING = "how often should the websocket client send a heartbeat?"
USED = "Done: the client sends a WebSocket ping every 30 s; the balancer drops idle sockets."


def test_a_trace_of_confirmations_promotes_and_apply_keeps_comments(
    team: Path, tmp_path: Path
) -> None:
    assert "ws-heartbeat" in session(team, "s1", PING, USED)
    backdate(team, "s1", 3)
    assert run_json(team, "promote")["promotions"] == []  # one session proves little
    # Injected, but the answer draws on none of it (it only repeats the prompt's words):
    # being injected is not a confirmation.
    for n in range(3):
        session(team, f"n{n}", PING, "The websocket client sends a heartbeat; done.")
        backdate(team, f"n{n}", 2 - n)
    assert run_json(team, "promote")["promotions"] == []
    session(team, "s2", PING, USED)  # a second day on which an answer used it
    (found,) = run_json(team, "promote")["promotions"]
    assert (found["id"], found["from"], found["to"], found["confirmed"], found["days"]) == (
        "ws-heartbeat",
        "tentative",
        "observed",
        2,
        2,
    )
    session(team, "s3", PING, USED)  # the same day again: a third session, not a third day
    backdate(team, "s3", 1)
    session(team, "s4", PING, USED)
    backdate(team, "s4", 2)
    out = memkit("promote", cwd=team)
    assert out.returncode == 0, out.stderr
    # Four days by one person: observed, not fixed (fixed needs two people).
    assert "would promote ws-heartbeat: tentative -> observed" in out.stdout
    assert "confirmed in 4 sessions on 4 days by 1 person (alice-test)" in out.stdout
    assert "referred to in the answer in 4; contradicted in 0" in out.stdout

    # Bob, in his own clone, uses it too and exports his usage.
    bob = tmp_path / "bob"
    shutil.copytree(team, bob, symlinks=True)
    for extra in ("", "-wal", "-shm"):
        (bob / f".memkit/usage.db{extra}").unlink(missing_ok=True)
    as_bob = {"GIT_AUTHOR_EMAIL": "bob@example.com", "GIT_AUTHOR_NAME": "Bob"}
    payload = {"session_id": "b1", "cwd": str(bob), "prompt": PING}
    assert "ws-heartbeat" in run_hook("user-prompt-submit", payload, bob, env=as_bob).stdout
    stop = {"session_id": "b1", "cwd": str(bob), "last_assistant_message": USED}
    run_hook("stop", stop, bob, env=as_bob)
    assert memkit("usage", "export", "--write", cwd=bob, env=as_bob).returncode == 0
    (team / "usage").mkdir(exist_ok=True)
    shutil.copy(bob / "usage/bob.json", team / "usage/bob.json")

    # The deploy atom is used as often, but two of its sessions say otherwise.
    deploy = "can I deploy the payments service today?"
    for n, (sid, answer) in enumerate(
        (
            ("d1", "Yes: the payments deploy went through its 30 min canary first."),
            ("d2", "Fine, the canary of 30 min is running."),
            ("d3", "Every payments deploy now needs a canary of 10 min before full rollout."),
            ("d4", "Since March every payments deploy needs a canary of 15 min before rollout."),
        )
    ):
        assert "deploy-window" in session(team, sid, deploy, answer)
        backdate(team, sid, n)
    out = memkit("promote", cwd=team)
    assert out.returncode == 0, out.stderr
    assert "would promote ws-heartbeat: tentative -> fixed" in out.stdout
    assert "confirmed in 5 sessions on 4 days by 2 people (alice-test, bob)" in out.stdout
    assert "deploy-window" not in out.stdout  # Laplace 3/6 < 0.7: held back

    applied = memkit("promote", "--apply", cwd=team)
    assert applied.returncode == 0, applied.stderr
    after = (team / "shared/ws-heartbeat.md").read_text(encoding="utf-8")
    pairs = zip(HEARTBEAT.split("\n"), after.split("\n"), strict=True)  # no line added
    changed = [(a, b) for a, b in pairs if a != b]
    assert changed == [
        (
            'confidence: "tentative"   # 臨 until sessions confirm it',
            'confidence: "fixed"       # 臨 until sessions confirm it',
        )
    ]
    git(team, "add", "shared/ws-heartbeat.md")
    done = commit(team, "memory: ws-heartbeat confirmed on 4 days by 2 people")
    assert done.returncode == 0, done.stdout + done.stderr
    assert run_json(team, "promote")["promotions"] == []  # settled


def test_an_unused_atom_is_archived_not_injected_and_restored(team: Path) -> None:
    jenkins = "why is the nightly jenkins build red?"
    first = {"session_id": "a", "cwd": str(team), "prompt": jenkins}
    assert "old-build-server" in run_hook("user-prompt-submit", first, team).stdout
    # The usage log began counting today: nothing is known to be unused yet.
    assert run_json(team, "archive", "--suggest")["suggestions"] == []
    usage_db = team / ".memkit/usage.db"
    usage_db.unlink()  # instead: a clone whose log has counted for 200 days
    for extra in ("-wal", "-shm"):
        usage_db.with_name("usage.db" + extra).unlink(missing_ok=True)
    with usage_log(team) as log:
        log.record("long-ago", ["ws-heartbeat"], now=time.time() - 200 * 86400)
        log.note("long-ago", ["ws-heartbeat"], "answered", now=time.time() - 200 * 86400)
        log.record("today", ["deploy-window"])
    found = {s["id"]: s for s in run_json(team, "archive")["suggestions"]}
    assert sorted(found) == ["old-build-server", "ws-heartbeat"]
    item = found["old-build-server"]
    assert item["kind"] == "decayed" and item["unused_days"] == 200
    assert "never used in 200 days" in item["reason"] and item["effectiveness"] < 0.3
    assert "unused for 200 days (confirmed 1," in found["ws-heartbeat"]["reason"]

    original = (team / "shared/old-build-server.md").read_text(encoding="utf-8")
    out = memkit("archive", "--apply", "old-build-server", cwd=team)
    assert out.returncode == 0, out.stderr
    assert "shared/old-build-server.md -> archive/shared/old-build-server.md" in out.stdout
    status = git(team, "status", "--porcelain").stdout
    assert "R  shared/old-build-server.md -> archive/shared/old-build-server.md" in status
    archived = (team / "archive/shared/old-build-server.md").read_text(encoding="utf-8")
    assert "status: archived\n" in archived and "never used in 200 days" in archived
    done = commit(team, "memory: archive old-build-server")
    assert done.returncode == 0, done.stdout + done.stderr

    # Not injected: a cold hook, then the warm engine (which also answers the other atom).
    payload = {"session_id": "b", "cwd": str(team), "prompt": jenkins + " websocket heartbeat"}
    cold = run_hook("user-prompt-submit", payload, team).stdout
    assert "ws-heartbeat" in cold and "old-build-server" not in cold
    from tests.helpers import start_engine

    engine = start_engine(team, "--idle", "600")
    try:
        warm = run_hook(
            "user-prompt-submit", {**payload, "session_id": "c"}, team, engine=True
        ).stdout
        assert "vector #" in warm  # the engine answered
        assert "ws-heartbeat" in warm and "old-build-server" not in warm
    finally:
        engine.terminate()
        engine.communicate(timeout=30)
    # Still found by those who look for it.
    assert "old-build-server" not in memkit("search", "jenkins build", cwd=team).stdout
    assert "old-build-server" in memkit("search", "--all", "jenkins build", cwd=team).stdout

    back = memkit("archive", "--restore", "old-build-server", cwd=team)
    assert back.returncode == 0, back.stderr
    assert (team / "shared/old-build-server.md").read_text(encoding="utf-8") == original
    done = commit(team, "memory: restore old-build-server")
    assert done.returncode == 0, done.stdout + done.stderr
    # Exactly as it was (MEMORY.md, the generated overview, caught up with the commits).
    assert git(team, "diff", "HEAD~2", "--stat", "--", ".", ":!MEMORY.md").stdout == ""
    restored = run_hook("user-prompt-submit", {**payload, "session_id": "d"}, team).stdout
    assert "old-build-server" in restored


def test_expired_atoms_are_swept_and_personal_ones_stay_private(team: Path) -> None:
    write_atom(
        team,
        "episodic/session-2026-01-03.md",
        atom_text(
            "session-2026-01-03",
            title="Session: kafka consumer lag",
            body="- Looked into kafka consumer lag on the orders topic; raised max.poll.records.",
            created="2026-01-03",
            extra="expires: 2026-01-27\nauthor: alice@example.com\ntriggers: [kafka]\n",
        ),
    )
    write_atom(
        team,
        "episodic/session-today.md",
        atom_text(
            "session-today",
            body="- Set max.poll.records to 500 in config/consumer.yaml for the kafka orders "
            "consumer.",
            created=TODAY,
            extra=f"expires: {(dt.date.today() + dt.timedelta(days=24)).isoformat()}\n",
        ),
    )
    write_atom(
        team,
        "personal/alice/standup-room.md",
        atom_text(
            "standup-room",
            body="- This sprint the kafka standup is in room 4.",
            created=TODAY,
            extra="expires: 2026-02-01\n",
        ),
    )
    git(team, "add", "episodic")
    done = commit(team, "episodic")
    assert done.returncode == 0, done.stdout + done.stderr
    assert memkit("index", cwd=team).returncode == 0
    sweep = memkit("archive", "--sweep", cwd=team)
    assert sweep.returncode == 0, sweep.stderr
    moved = sweep.stdout
    assert "episodic/session-2026-01-03.md -> archive/episodic/session-2026-01-03.md" in moved
    assert "personal/alice/standup-room.md -> archive/personal/alice/standup-room.md" in moved
    assert "session-today" not in sweep.stdout
    # The personal atom was never tracked: it stays ignored where it landed.
    status = git(team, "status", "--porcelain", "--untracked-files=all").stdout
    assert "standup-room" not in status, status
    assert "R  episodic/session-2026-01-03.md -> archive/episodic/session-2026-01-03.md" in status
    assert commit(team, "sweep").returncode == 0
    prompt = {"session_id": "k", "cwd": str(team), "prompt": "kafka consumer lag standup"}
    out = run_hook("user-prompt-submit", prompt, team).stdout
    assert "session-2026-01-03" not in out and "standup-room" not in out
    assert run_json(team, "archive")["suggestions"] == [] or all(
        s["kind"] != "expired" for s in run_json(team, "archive")["suggestions"]
    )
    back = memkit("archive", "--restore", "standup-room", cwd=team)
    assert back.returncode == 0, back.stderr
    assert (team / "personal/alice/standup-room.md").is_file()
    assert "standup-room" not in git(team, "status", "--porcelain", "--untracked-files=all").stdout
    exclude = git(team, "rev-parse", "--git-path", "info/exclude").stdout.strip()
    assert "standup-room" not in (team / exclude).read_text(encoding="utf-8")


def test_validate_fix_marks_what_a_live_atom_supersedes(team: Path) -> None:
    write_atom(
        team,
        "shared/ws-heartbeat-45s.md",
        atom_text(
            "ws-heartbeat-45s",
            title="WebSocket heartbeat 45 s",
            body="- Send a WebSocket ping every 45 s; the balancer now drops idle sockets at 90 s.",
            extra="supersedes: [ws-heartbeat]\ntriggers: [websocket]\n",
        ),
    )
    warned = memkit("validate", cwd=team)
    assert warned.returncode == 0  # a warning
    found = "shared/ws-heartbeat-45s.md:6:1: MK023 warning: supersedes `ws-heartbeat`"
    assert found in warned.stdout
    fixed = memkit("validate", "--fix", cwd=team)
    assert fixed.returncode == 0, fixed.stdout
    assert "shared/ws-heartbeat.md: fixed: status: superseded (superseded by ws-heartbeat-45s)" in (
        fixed.stdout
    )
    assert "MK023" not in fixed.stdout
    text = (team / "shared/ws-heartbeat.md").read_text(encoding="utf-8")
    assert text == HEARTBEAT.replace(
        "triggers: [websocket, heartbeat]\n",
        "triggers: [websocket, heartbeat]\nstatus: superseded\nsuperseded_by: [ws-heartbeat-45s]\n",
    )
    assert memkit("validate", "--fix", cwd=team).stdout == ""  # nothing left to do
    git(team, "add", "shared")
    done = commit(team, "memory: heartbeat is 45 s now")
    assert done.returncode == 0, done.stdout + done.stderr
    prompt = {"session_id": "w", "cwd": str(team), "prompt": "websocket heartbeat ping"}
    out = run_hook("user-prompt-submit", prompt, team).stdout
    assert "ws-heartbeat-45s" in out and "## ws-heartbeat ·" not in out


def test_the_agent_s_reads_writes_and_listings_are_evidence(
    team: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    start = {"session_id": "s9", "cwd": str(team), "source": "startup"}
    assert "ws-heartbeat" in run_hook("session-start", start, team).stdout
    monkeypatch.delenv("CLAUDE_CODE_SESSION_ID", raising=False)
    assert memkit("show", "deploy-window", cwd=team).returncode == 0  # a person: not counted
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", "s9")
    assert memkit("show", "deploy-window", cwd=team).returncode == 0  # the agent, in s9
    path = write_atom(
        team,
        "shared/ws-ping-jitter.md",
        atom_text(
            "ws-ping-jitter",
            body="- Add up to 5 s of random jitter to the WebSocket ping so clients do not "
            "all ping at once.",
            extra="related: [ws-heartbeat]\nsupersedes: [old-build-server]\n",
        ),
    )
    written = {
        "session_id": "s9",
        "cwd": str(team),
        "tool_name": "Write",
        "tool_input": {"file_path": str(path)},
    }
    run_hook("post-tool-use", written, team)
    with usage_log(team) as log:
        tallies = log.tallies()
    assert tallies["ws-heartbeat"].shown == 1
    assert tallies["ws-heartbeat"].cited == 1 and tallies["ws-heartbeat"].confirmed == 1
    assert tallies["deploy-window"].read == 1 and tallies["deploy-window"].confirmed == 1
    assert tallies["old-build-server"].contradicted == 1
    assert tallies["old-build-server"].confirmed == 0
    listed_only = [a for a, t in tallies.items() if t.shown and not t.confirmed]
    assert listed_only  # a listing at session start confirms nothing


def added(team: Path, *args: str) -> str:
    """`memkit add ARGS`: the confidence the new atom was written with."""
    result = memkit("add", *args, "--json", cwd=team)
    assert result.returncode == 0, result.stdout
    path: str = json.loads(result.stdout)["path"]
    text = (team / path).read_text(encoding="utf-8")
    return text.split("\nconfidence: ", 1)[1].split("\n", 1)[0]


def test_a_pitfall_that_passes_the_gate_starts_as_observed(team: Path) -> None:
    pitfall = "Never run the kafka migration with --all-topics: it rewrites every offset."
    assert added(team, "--type", "pitfall", pitfall) == "observed"
    fact = "Remember: the kafka orders topic uses 12 partitions, set in config/topics.yaml."
    assert added(team, fact) == "tentative"
    gotcha = "Gotcha: the staging kafka cluster drops messages over 1 MB silently."
    assert added(team, "--type", "pitfall", "--confidence", "tentative", gotcha) == "tentative"


def test_usage_is_exported_per_clone_and_merged_for_the_team(team: Path, tmp_path: Path) -> None:
    from tests.helpers import join_clone

    (team / "memkit.yaml").write_text(
        (team / "memkit.yaml").read_text(encoding="utf-8")
        + "\nlifecycle:\n  promote:\n    fixed_users: 2   # fixed needs two people\n",
        encoding="utf-8",
    )
    git(team, "add", "memkit.yaml")
    assert commit(team, "settings").returncode == 0
    bob = tmp_path / "bob"
    join_clone(team, bob, "bob@example.com")
    with usage_log(bob) as log:
        for back, sid in enumerate(("bob-session-1", "bob-session-2")):
            log.note(sid, ["ws-heartbeat"], "answered", now=time.time() - (back + 2) * 86400)
    out = memkit("usage", "export", "--write", cwd=bob)
    assert out.returncode == 0, out.stderr
    assert "wrote usage/bob.json" in out.stdout
    doc = json.loads((bob / "usage/bob.json").read_text(encoding="utf-8"))
    (clone,) = doc["clones"].values()
    assert clone["atoms"]["ws-heartbeat"]["confirmed"] == 2
    assert len(clone["atoms"]["ws-heartbeat"]["days"]) == 2  # days, never times of day
    assert clone["since"]  # when his log began counting: "unused" reaches back no further
    assert "bob-session" not in (bob / "usage/bob.json").read_text(encoding="utf-8")  # no ids
    git(bob, "add", "usage/bob.json")
    done = commit(bob, "usage: bob")
    assert done.returncode == 0, done.stdout + done.stderr
    # Only Bob writes Bob's: usage counts toward promotions.
    (bob / "usage/alice.json").write_text((bob / "usage/bob.json").read_text(), encoding="utf-8")
    git(bob, "add", "usage/alice.json")
    forged = commit(bob, "usage: alice?")
    assert forged.returncode == 1
    assert "usage/alice.json:1:1: MK207 usage/alice.json is another person's usage export" in (
        forged.stdout + forged.stderr
    )
    git(bob, "rm", "-q", "--cached", "usage/alice.json")
    (bob / "usage/alice.json").unlink()

    with usage_log(team) as log:
        for back, sid in enumerate(("a1", "a2")):
            log.note(sid, ["ws-heartbeat"], "answered", now=time.time() - back * 86400)
    (alone,) = run_json(team, "promote")["promotions"]
    assert (alone["to"], alone["confirmed"], alone["users"]) == ("observed", 2, 1)
    git(team, "pull", "-q", "--no-rebase", str(bob), "HEAD")  # Alice merges Bob's commit
    (merged,) = run_json(team, "promote")["promotions"]
    assert (merged["to"], merged["confirmed"], merged["days"], merged["users"]) == (
        "fixed",
        4,
        4,
        2,
    )
    assert merged["people"] == ["alice-test", "bob"]

    # Bob's second clone adds its own entry; his first one's is kept.
    laptop = tmp_path / "bob-laptop"
    git(tmp_path, "clone", "-q", str(team), str(laptop))
    git(laptop, "config", "user.email", "bob@example.com")
    with usage_log(laptop) as log:
        log.record("l1", ["deploy-window"])
    assert memkit("usage", "export", "--write", cwd=laptop).returncode == 0
    doc = json.loads((laptop / "usage/bob.json").read_text(encoding="utf-8"))
    assert len(doc["clones"]) == 2
    # A damaged export is named, not fatal.
    (team / "usage/carol.json").write_text("{not json", encoding="utf-8")
    health = run_json(team, "health")
    checks: list[dict[str, object]] = health["checks"]
    usage_check = next(c for c in checks if c["kind"] == "usage")
    assert usage_check["items"] == [
        "usage/carol.json: not JSON (line 1: Expecting property name enclosed in double quotes)"
    ]
    assert run_json(team, "promote")["promotions"]  # the others still count


def test_memkit_ci_adds_the_health_report_to_the_summary(
    team: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(team, "checkout", "-q", "-b", "change")
    write_atom(
        team,
        "shared/kafka-partitions.md",
        atom_text(
            "kafka-partitions",
            body="- The kafka orders topic has 12 partitions in production (config/topics.yaml).",
            created=TODAY,
        ),
    )
    git(team, "add", "shared")
    assert commit(team, "memory: kafka").returncode == 0
    with usage_log(team) as log:  # this clone has counted usage for 200 days
        log.record("long-ago", ["ws-heartbeat"], now=time.time() - 200 * 86400)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    out = memkit(
        "ci",
        "--base",
        "main",
        "--actor",
        "alice",
        "--format",
        "github",
        "--no-evals",
        "--health",
        cwd=team,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    text = summary.read_text(encoding="utf-8")
    assert "### Memory health" in text
    assert "| ⚠️ | archive candidates | 2: old-build-server, ws-heartbeat | memkit archive" in text
    assert "| ✅ | invalid atom files (not served) | none |" in text


TOKEN = "xoxb-1234567890123-1234567890123-abcdefghijklmnopqrstuvwx"  # noqa: S105  (fake)


def test_an_atom_named_after_a_token_never_prints_it(team: Path) -> None:
    """A draft the index has not seen yet (so nothing refused it) is still listed redacted."""
    write_atom(team, f"shared/{TOKEN}.md", atom_text(TOKEN, created="2025-01-01"))
    with usage_log(team) as log:  # usage counted for 200 days: the draft is "unused"
        log.record("long-ago", ["deploy-window"], now=time.time() - 200 * 86400)
    (team / "usage").mkdir()
    (team / f"usage/{TOKEN}.json").write_text("{}", encoding="utf-8")
    for args in (
        ("archive", "--suggest"),
        ("archive", "--json"),
        ("health",),
        ("health", "--json"),
        ("health", "--markdown"),
        ("promote",),
    ):
        out = memkit(*args, cwd=team)
        assert out.returncode == 0, out.stderr
        assert TOKEN not in out.stdout + out.stderr, args
        assert "xoxb…" in out.stdout + out.stderr, args
