"""Recall as Claude Code sees it: scopes, several repositories, CJK, long atoms, the output cap,
the usage log, and hooks that stay quiet when the engine hangs."""

from __future__ import annotations

import json
import socket
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memkit.recall.usage import UsageLog
from tests.helpers import (
    atom_text,
    commit_and_index,
    context,
    make_memory_repo,
    memkit,
    never_answering,
    run_hook,
    write_atom,
)


@pytest.fixture
def team(tmp_path: Path) -> Path:
    repo = make_memory_repo(tmp_path / "team")
    write_atom(
        repo,
        "shared/ws-heartbeat.md",
        atom_text(
            "ws-heartbeat",
            title="WebSocket heartbeat",
            type_="pitfall",
            body="- Send a WebSocket ping every 30 s.",
            extra="triggers: [websocket, 心跳]\n",
        ),
    )
    write_atom(
        repo,
        "personal/alice-test/alice-websocket-notes.md",
        atom_text(
            "alice-websocket-notes",
            title="My websocket notes",
            body="- I debug websocket drops with tcpdump.",
            extra="triggers: [websocket]\n",
        ),
    )
    write_atom(
        repo,
        "personal/bob/bob-websocket-notes.md",
        atom_text(
            "bob-websocket-notes",
            title="Bob's websocket notes",
            body="- Bob keeps websocket logs for a week.",
            extra="triggers: [websocket]\n",
        ),
    )
    commit_and_index(repo)
    return repo


def test_only_scopes_the_user_may_read(team: Path) -> None:
    payload = {"session_id": "s", "cwd": str(team), "prompt": "websocket drops again"}
    text = context(run_hook("user-prompt-submit", payload, team))
    assert "## ws-heartbeat" in text
    assert "## alice-websocket-notes" in text  # the git user is alice-test
    assert "bob-websocket-notes" not in text


def test_recall_merges_several_repositories(team: Path, tmp_path: Path) -> None:
    mine = make_memory_repo(tmp_path / "mine")
    write_atom(
        mine,
        "shared/ws-proxy.md",
        atom_text(
            "ws-proxy",
            title="WebSocket through the proxy",
            body="- The office proxy needs the websocket upgrade header allowed.",
            extra="triggers: [websocket]\n",
        ),
    )
    commit_and_index(mine)
    project = tmp_path / "project"
    project.mkdir()
    payload = {"session_id": "s", "cwd": str(project), "prompt": "websocket drops again"}
    text = context(run_hook("user-prompt-submit", payload, project, team, mine))
    assert "## ws-heartbeat" in text and "## ws-proxy" in text
    start = context(
        run_hook(
            "session-start",
            {"session_id": "s", "cwd": str(project), "source": "startup"},
            project,
            team,
            mine,
        )
    )
    assert 'repo="team"' in start and 'repo="mine"' in start


def test_cjk_prompt_finds_cjk_trigger(team: Path) -> None:
    payload = {"session_id": "s", "cwd": str(team), "prompt": "連線的心跳間隔要設多少?"}
    text = context(run_hook("user-prompt-submit", payload, team))
    assert "## ws-heartbeat" in text and "trigger '心跳'" in text


def test_long_atom_gives_its_matching_section(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team")
    filler = "\n".join(f"- Unrelated detail number {i} about the build." for i in range(40))
    body = (
        "Overview of the release train.\n\n## Packaging\n\n"
        + filler
        + "\n\n## Signing\n\n- Sign release artifacts with the hardware key SIGN-MARK.\n"
    )
    write_atom(
        repo,
        "shared/release-train.md",
        atom_text(
            "release-train",
            title="Release train",
            body=body,
            type_="procedure",
            extra="triggers: [release]\n",
        ),
    )
    commit_and_index(repo)
    payload = {"session_id": "s", "cwd": str(repo), "prompt": "how do we sign a release artifact"}
    text = context(run_hook("user-prompt-submit", payload, repo))
    assert "SIGN-MARK" in text
    assert "Unrelated detail number 30" not in text
    assert "other sections omitted" in text


def test_output_fits_the_budget_and_the_cap(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team")
    for i in range(30):
        write_atom(
            repo,
            f"shared/cache-rule-{i}.md",
            atom_text(
                f"cache-rule-{i}",
                title=f"Cache rule {i}",
                body="\n".join(f"- Rotate the cache shard {j} before noon." for j in range(25)),
                extra="triggers: [cache]\n",
            ),
        )
    commit_and_index(repo)
    payload = {"session_id": "s", "cwd": str(repo), "prompt": "cache " + "rotation " * 60}
    text = context(run_hook("user-prompt-submit", payload, repo))
    assert 0 < len(text) <= 10_000
    assert text.rstrip().endswith("</memkit-memory>") or "was cut to fit" in text
    assert text.count("(why: ") >= 3


def test_pre_tool_use_once_per_session_until_compaction(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team")
    write_atom(
        repo,
        "shared/net-deadlines.md",
        atom_text(
            "net-deadlines",
            title="Network deadlines",
            body="- Always set a connect deadline.",
            extra='paths: ["src/net/**"]\n',
        ),
    )
    commit_and_index(repo)
    read = {
        "session_id": "s",
        "cwd": str(repo),
        "tool_name": "Read",
        "tool_input": {"file_path": str(repo / "src/net/conn.py")},
        "tool_use_id": "t1",
    }
    first = json.loads(run_hook("pre-tool-use", read, repo).stdout)
    assert "permissionDecision" not in first["hookSpecificOutput"]
    assert (
        "paths 'src/net/**' matches src/net/conn.py"
        in first["hookSpecificOutput"]["additionalContext"]
    )
    assert run_hook("pre-tool-use", read, repo).stdout == ""
    other = {**read, "tool_input": {"file_path": str(repo / "src/ui/view.py")}, "session_id": "t"}
    assert run_hook("pre-tool-use", other, repo).stdout == ""
    run_hook("session-start", {"session_id": "s", "cwd": str(repo), "source": "compact"}, repo)
    assert "net-deadlines" in run_hook("pre-tool-use", read, repo).stdout


def test_activation_rewards_recent_and_frequent_use(tmp_path: Path) -> None:
    log = UsageLog(tmp_path)
    now = time.time()
    try:
        assert log.db is not None  # a fresh folder: the log opened
        log.db.executemany(
            "INSERT INTO uses VALUES (?, ?, 'inject')",
            [("often", now - 3600 * h) for h in (1, 2, 3)]
            + [("once", now - 3600), ("long-ago", now - 3600 * 24 * 30)],
        )
        act = log.activation(["often", "once", "long-ago", "never"], now=now)
    finally:
        log.close()
    assert act["often"] > act["once"] > act["long-ago"] > act["never"]


def test_a_damaged_usage_log_is_set_aside(team: Path) -> None:
    (team / ".memkit").mkdir(exist_ok=True)
    (team / ".memkit/usage.db").write_bytes(b"this is not a database" * 100)
    payload = {"session_id": "s", "cwd": str(team), "prompt": "websocket drops again"}
    assert "## ws-heartbeat" in context(run_hook("user-prompt-submit", payload, team))
    assert list((team / ".memkit").glob("usage.db.damaged-*"))
    with sqlite3.connect(team / ".memkit/usage.db") as db:
        assert db.execute("SELECT count(*) FROM given").fetchone()[0] >= 1


@pytest.fixture
def hung_engine(team: Path) -> Iterator[Path]:
    """Something listening on the engine's socket that never answers."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(team / ".memkit/engine.sock"))
    with never_answering(server):
        yield team


def test_a_hung_engine_does_not_hold_up_the_prompt(hung_engine: Path) -> None:
    payload = {"session_id": "s", "cwd": str(hung_engine), "prompt": "websocket drops again"}
    start = time.monotonic()
    # The engine is asked (and does not answer).
    result = run_hook("user-prompt-submit", payload, hung_engine, engine=True)
    assert time.monotonic() - start < 10
    assert result.returncode == 0
    assert "## ws-heartbeat" in context(result)  # answered in-process after the engine's timeout


def test_past_its_deadline_a_hook_says_nothing_and_the_next_answer_says_why(
    hung_engine: Path,
) -> None:
    import fcntl
    import os

    from memkit.claude.main import SLOTS

    # Every in-process slot busy and the engine hung: whatever the machine's load, this hook
    # cannot answer before its deadline (no race with how fast the machine is).
    held = []
    for n in range(SLOTS):
        fd = os.open(hung_engine / f".memkit/hook-slot-{n}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        held.append(fd)
    payload = {"session_id": "s-late", "cwd": str(hung_engine), "prompt": "websocket drops"}
    start = time.monotonic()
    try:
        result = run_hook(
            "user-prompt-submit",
            payload,
            hung_engine,
            engine=True,
            env={"MEMKIT_HOOK_DEADLINE": "2"},
        )
    finally:
        for fd in held:
            os.close(fd)
    # Its deadline counts from its own start: it left then, not after the engine's 1.5 s
    # timeout plus a slot; the bound here only says it did not wait for either to end.
    assert time.monotonic() - start < 30
    assert (result.returncode, result.stdout) == (0, "")
    log = (hung_engine / ".memkit/logs/hooks.log").read_text(encoding="utf-8")
    assert "user-prompt-submit: deadline expired (the 2 s deadline expired while waiting" in log

    # Never silently: the session's next answer says memory was skipped and why, once.
    after = context(run_hook("user-prompt-submit", payload, hung_engine))
    assert "memkit: memory was skipped for an earlier prompt of this session" in after
    assert "in-process slots" in after and "## ws-heartbeat" in after
    again = context(run_hook("user-prompt-submit", payload, hung_engine))
    assert "was skipped" not in again
    doctor = memkit("doctor", cwd=hung_engine).stdout
    assert "warn hook deadlines: 1 hook(s) answered nothing in the last 7 days" in doctor


def test_session_start_names_pending_reviews_and_conflicts(team: Path) -> None:
    write_atom(
        team,
        "shared/_pending/db-choice.md",
        atom_text("db-choice", title="We use Postgres", type_="decision", body="- Postgres 16."),
    )
    write_atom(team, "shared/draft.md", atom_text("draft", type_="pitfal"))
    write_atom(team, "shared/ws-heartbeat-60.md", atom_text("ws-heartbeat-60"))
    commit_and_index(team)
    pair = {
        "incoming": "ws-heartbeat",
        "incoming_path": "shared/ws-heartbeat.md",
        "other": "ws-heartbeat-60",
        "other_path": "shared/ws-heartbeat-60.md",
        "kind": "contradicts",
        "reason": "30 s vs 60 s",
    }
    # A pair whose atom is gone since the audit is not shown: the files decide.
    gone = {**pair, "other": "ws-old", "other_path": "shared/ws-old.md", "reason": "gone"}
    report = {"unresolved": [pair, gone]}
    (team / ".memkit/audit").mkdir(parents=True, exist_ok=True)
    (team / ".memkit/audit/last.json").write_text(json.dumps(report), encoding="utf-8")
    payload = {"session_id": "s", "cwd": str(team), "source": "startup"}
    text = context(run_hook("session-start", payload, team))
    assert "1 atom(s) wait for review" in text
    assert (
        "1 atom file(s) are refused by validation and not served (shared/draft.md (MK006))" in text
    )
    assert "Unresolved contradicts: ws-heartbeat vs ws-heartbeat-60 (30 s vs 60 s)" in text
    assert "ws-old" not in text
    assert "db-choice" not in text  # not reviewed yet: not served
    assert "bob-websocket-notes" not in text  # another person's scope


def test_a_large_audit_report_is_read_in_bounded_parts(team: Path) -> None:
    """Issue 29: a 5 MB report (10,000 pairs of a large memory) neither slows the hooks into
    their deadline nor hides the pair that matters: SessionStart reads the head of the list,
    recall finds the pair of the atoms it injects together wherever it is."""
    write_atom(
        team,
        "shared/ws-heartbeat-60.md",
        atom_text(
            "ws-heartbeat-60",
            title="WebSocket heartbeat every 60 s",
            body="- Send a WebSocket ping every 60 s.",
            extra="triggers: [websocket]\n",
        ),
    )
    commit_and_index(team)
    filler = [
        {
            "incoming": f"gone-{n}",
            "incoming_path": f"shared/gone-{n}.md",
            "other": f"also-gone-{n}",
            "other_path": f"shared/also-gone-{n}.md",
            "kind": "contradicts",
            "reason": "x" * 300,
            "similarity": 0.9,
            "resolved": False,
        }
        for n in range(10_000)
    ]
    pair = {
        "incoming": "ws-heartbeat",
        "incoming_path": "shared/ws-heartbeat.md",
        "other": "ws-heartbeat-60",
        "other_path": "shared/ws-heartbeat-60.md",
        "kind": "contradicts",
        "reason": "30 s vs 60 s",
    }
    report = {"rules": 1, "unresolved": [*filler, pair], "resolved": [], "counts": {}}
    (team / ".memkit/audit").mkdir(parents=True, exist_ok=True)
    path = team / ".memkit/audit/last.json"
    path.write_text(json.dumps(report, indent=1), encoding="utf-8")
    assert path.stat().st_size > 4_000_000

    from memkit.audit import status

    read: list[int] = []
    real = status.unresolved_now

    def counting(root: Path, item: dict[str, object], seen: status.Seen | None = None) -> bool:
        read.append(1)
        return real(root, item, seen)

    status.unresolved_now = counting
    try:
        shown, more = status.first_conflicts(team, ("contradicts",), limit=3)
    finally:
        status.unresolved_now = real
    assert shown == [] and more and len(read) < 1_000  # the head only, not 10,000 file reads

    start = {"session_id": "s", "cwd": str(team), "source": "startup"}
    text = context(run_hook("session-start", start, team))
    assert "More unresolved pairs: `memkit health` lists them all." in text
    prompt = {"session_id": "s", "cwd": str(team), "prompt": "websocket heartbeat ping"}
    said = context(run_hook("user-prompt-submit", prompt, team))
    assert "## ws-heartbeat ·" in said and "## ws-heartbeat-60 ·" in said
    assert "memkit: ws-heartbeat and ws-heartbeat-60 disagree (30 s vs 60 s)" in said


def test_a_trigger_match_does_not_crowd_out_a_text_match(team: Path) -> None:
    write_atom(
        team,
        "shared/reconnect-backoff.md",
        atom_text(
            "reconnect-backoff",
            title="Reconnect with exponential backoff",
            body="- Reconnect with exponential backoff, capped at 60 s.",
        ),
    )
    commit_and_index(team)
    payload = {
        "session_id": "s",
        "cwd": str(team),
        "prompt": "websocket: how should the client reconnect, with what backoff?",
    }
    text = context(run_hook("user-prompt-submit", payload, team))
    assert "## ws-heartbeat" in text and "(why: trigger 'websocket'" in text
    assert "## reconnect-backoff" in text
    reason = text.split("## reconnect-backoff", 1)[1].splitlines()[1]
    assert reason.startswith("(why: BM25 #1") and "; score " in reason


def test_the_reason_says_when_an_atom_was_used_before(team: Path) -> None:
    payload = {"session_id": "s1", "cwd": str(team), "prompt": "websocket drops again"}
    assert "used before" not in context(run_hook("user-prompt-submit", payload, team))
    again = context(run_hook("user-prompt-submit", {**payload, "session_id": "s2"}, team))
    assert "; used before (activation " in again


def test_the_error_log_keeps_private_text_out(team: Path) -> None:
    import io

    from memkit.claude.protocol import fail_open

    def broken(payload: dict[str, object]) -> None:
        raise ValueError(f"cannot handle {payload['prompt']}")

    raw = json.dumps({"cwd": str(team), "prompt": "ping <private>hunter2</private> pong"})
    out = io.StringIO()
    assert fail_open("user-prompt-submit", broken, io.StringIO(raw), out) == 0
    assert out.getvalue() == ""
    log = (team / ".memkit/logs/hooks.log").read_text(encoding="utf-8")
    assert "cannot handle ping" in log and "hunter2" not in log


def test_activation_of_a_whole_large_repository(tmp_path: Path) -> None:
    log = UsageLog(tmp_path)
    try:
        log.record("s", ["atom-5", "atom-1500"])
        act = log.activation([f"atom-{i}" for i in range(3_000)])
    finally:
        log.close()
    assert len(act) == 3_000
    assert act["atom-5"] > act["atom-6"] and act["atom-1500"] == act["atom-5"]
