"""Sessions II (issue 43), each with the real Claude Code CLI against the fake API: subagents,
sessions that end without SessionEnd, past sessions read back, summaries only where the prompt
is about them, finding atoms by file."""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.claude.fake_api import FakeAPI, fake_api, text_reply, tool_reply, tool_results
from tests.claude.real_cli_test import CLAUDE, run_claude, tool_result_text
from tests.helpers import memkit

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not CLAUDE.exists() and not os.environ.get("CI"),
        reason="Claude Code CLI not installed (bash scripts/test.sh installs it)",
    ),
]

STRIPE = "Why does the Stripe invoice.paid webhook handler charge customers twice?"


def summaries(repo: Path) -> list[Path]:
    return sorted((repo / ".memkit/episodic").glob("session-*.md"))


def test_a_past_session_found_by_search_can_be_read(project: Path, tmp_path: Path) -> None:
    """MCP `search` with `scope: episodic` lists a summary; `get` and `memkit show` read it."""
    with fake_api() as (api, url):
        run_claude(
            project, url, f"READ-FILE {project / 'src/net/conn.py'} and summarise it.", tmp_path
        )
        (summary,) = summaries(project)
        api.requests.clear()
        api.script = [
            ("mcp__memkit__search", {"query": "conn.py", "scope": "episodic"}),
            ("mcp__memkit__get", {"ids": [summary.stem]}),
            ("Bash", {"command": f"memkit show {summary.stem}", "description": "read it"}),
        ]
        tools = ("mcp__memkit__search", "mcp__memkit__get", "Bash")
        run_claude(project, url, "What did I do last time?", tmp_path, "--allowedTools", *tools)
        assert f"- {summary.stem} · episode" in tool_result_text(api, 1)
        got = tool_result_text(api, 2)
        assert "unknown id" not in got, got
        assert f"# {summary.stem} · episode · yours" in got and "`src/net/conn.py`" in got
        shown = tool_result_text(api, 3)
        assert f"# {summary.stem} · episode · yours" in shown and "`src/net/conn.py`" in shown
    bob = {"GIT_AUTHOR_EMAIL": "bob@example.com", "GIT_COMMITTER_EMAIL": "bob@example.com"}
    theirs = memkit("show", summary.stem, cwd=project, env=bob)
    assert theirs.returncode == 1 and "src/net/conn.py" not in theirs.stdout  # Alice's alone


def test_a_summary_is_served_only_to_a_prompt_about_it(project: Path, tmp_path: Path) -> None:
    """The last session was about a Stripe webhook: a CSS prompt gets no summary, a prompt
    about the webhook does, once a session."""
    with fake_api() as (api, url):
        run_claude(project, url, STRIPE, tmp_path)
        (summary,) = summaries(project)
        api.requests.clear()
        run_claude(project, url, "Make the settings page's CSS grid responsive.", tmp_path)
        css = "\n".join(api.messages_text())
        assert css and summary.stem not in css and "Stripe" not in css

        api.requests.clear()
        run_claude(project, url, "Where is the Stripe invoice webhook handled?", tmp_path)
        stripe = "\n".join(api.messages_text())
        assert f"## {summary.stem} · episode" in stripe and "invoice.paid" in stripe


def subagent_reply(
    target: Path, calls: list[tuple[str, dict[str, Any]]]
) -> Callable[[dict[str, Any]], bytes]:
    """A fake model whose main agent reads `target`, then starts a subagent that reads it
    too (its first message holds SUBTASK); `calls` record what each turn was asked."""

    def reply(body: dict[str, Any]) -> bytes:
        messages = body.get("messages", [])
        done = len(tool_results(messages))
        sub = "SUBTASK" in json.dumps(messages[:1])
        calls.append(("sub" if sub else "main", {"done": done, "text": json.dumps(messages)}))
        if sub:
            return (
                tool_reply("Read", {"file_path": str(target)}, 7) if not done else text_reply("ok")
            )
        if done == 0:
            return tool_reply("Read", {"file_path": str(target)}, 1)
        if done == 1:
            task = {
                "description": "look",
                "prompt": "SUBTASK read conn.py",
                "subagent_type": "general-purpose",
            }
            return tool_reply("Agent", task, 2)
        return text_reply("done")

    return reply


def test_a_subagent_gets_its_own_index_and_the_atoms_of_the_files_it_reads(
    project: Path, tmp_path: Path
) -> None:
    """The main agent reads src/net/conn.py (its atom given once), then a subagent reads the
    same file: the subagent starts with memory's index and is given the file's atom too."""
    target = project / "src/net/conn.py"
    calls: list[tuple[str, dict[str, Any]]] = []
    with fake_api() as (api, url):
        api.reply = subagent_reply(target, calls)  # type: ignore[method-assign,assignment]  # a scripted model of its own
        run_claude(
            project, url, "Look at the connection code.", tmp_path, "--allowedTools", "Agent"
        )
    main_after_read = [c["text"] for who, c in calls if who == "main" and c["done"] == 1]
    sub_first = [c["text"] for who, c in calls if who == "sub" and c["done"] == 0]
    sub_after_read = [c["text"] for who, c in calls if who == "sub" and c["done"] == 1]
    assert main_after_read and sub_first and sub_after_read, [w for w, _ in calls]
    assert "MEMKIT-MARK-NETPATH" in main_after_read[0]
    assert "memkit-index" in sub_first[0]  # SubagentStart: the subagent's own index
    assert "MEMKIT-MARK-NETPATH" in sub_after_read[0]  # its own once-per-agent record
    assert re.search(r"paths 'src/net/\*\*' matches src/net/conn\.py", sub_after_read[0])


def without_session_end(project: Path, stop_prefix: str = "") -> None:
    """What a killed session amounts to: no SessionEnd hook runs. `stop_prefix` goes before
    the Stop hook's command."""
    settings = project / ".claude/settings.json"
    data = json.loads(settings.read_text(encoding="utf-8"))
    del data["hooks"]["SessionEnd"]
    (stop,) = data["hooks"]["Stop"]
    stop["hooks"][0]["command"] = stop_prefix + stop["hooks"][0]["command"]
    settings.write_text(json.dumps(data), encoding="utf-8")


def stripe_session(project: Path, url: str, api: FakeAPI, tmp_path: Path) -> Path:
    """A session about the Stripe webhook; the one summary it left, which holds its prompt."""
    api.answer = "The root cause is the retry: the handler is not idempotent on event.id."
    run_claude(project, url, STRIPE, tmp_path)
    (summary,) = summaries(project)
    assert "invoice.paid" in summary.read_text(encoding="utf-8").split("## Asked")[1]
    return summary


def test_a_session_that_never_reaches_session_end_leaves_its_summary(
    project: Path, tmp_path: Path
) -> None:
    """A terminal closed, a crash, a `-p` run whose SessionEnd hooks Claude Code stopped: no
    SessionEnd hook runs. The summary was checkpointed at Stop, and the next session about
    the same thing is given it."""
    without_session_end(project)
    with fake_api() as (api, url):
        summary = stripe_session(project, url, api, tmp_path)
        api.requests.clear()
        run_claude(project, url, "Back to the Stripe invoice.paid webhook handler.", tmp_path)
        assert f"## {summary.stem} · episode" in "\n".join(api.messages_text())


# The Stop hook's command is run by `sh -c`, whose parent is the CLI: once the CLI has handed
# it its input, the CLI is stopped at once, then let go by `held_cli.py`.
HELD_CLI = Path(__file__).with_name("held_cli.py")
HELD_STILL = (
    "payload=$(cat); kill -STOP $PPID; printf '%s' \"$payload\" | "
    f"{shlex.quote(sys.executable)} {shlex.quote(str(HELD_CLI))} $PPID "
)


def test_a_stop_hook_that_runs_before_the_cli_writes_the_transcript_still_leaves_the_summary(
    project: Path, tmp_path: Path
) -> None:
    """Claude Code appends its transcript from a queue drained ~100 ms after the answer, and
    starts the Stop hooks meanwhile: on a loaded machine the hook may look before the turn,
    or the whole file of a first turn, is written. Here the CLI is held still (SIGSTOP) from
    the moment its Stop hook has its input until the hook has looked at the transcript
    (`held_cli.py`): the checkpoint waits for the turn, and the session that never reaches
    SessionEnd leaves its summary."""
    without_session_end(project, HELD_STILL)
    with fake_api() as (api, url):
        stripe_session(project, url, api, tmp_path)


def test_an_atom_is_found_by_the_file_it_is_about(project: Path, tmp_path: Path) -> None:
    """`paths: ["src/net/**"]` is a search dimension everywhere, not only before a Read: the
    MCP `search` for the file, a prompt that names it, and `memkit search`."""
    search = "mcp__memkit__search"
    with fake_api() as (api, url):
        api.script = [(search, {"query": "src/net/conn.py"})]
        asked = "Why does src/net/conn.py time out?"
        run_claude(project, url, asked, tmp_path, "--allowedTools", search)
        assert "MEMKIT-MARK-NETPATH" in api.messages_text()[0]  # the prompt hook
        found = tool_result_text(api, 1)
        assert "\n- socket-deadlines · fact" in found, found
        assert "paths 'src/net/**' matches src/net/conn.py" in found
    out = memkit("search", str(project / "src/net/conn.py"), cwd=project)
    assert out.returncode == 0 and "socket-deadlines" in out.stdout, out.stdout + out.stderr
    assert "texture-size" not in out.stdout and "ws-heartbeat-interval" not in out.stdout


BLIND = (
    "How does the Stripe webhook verify its signature?",
    "Our Stripe webhook retries: what is the policy?",
    "Where do we log Stripe webhook payloads?",
)


def test_a_topic_memory_has_nothing_on_is_counted_as_a_blind_spot_when_opted_in(
    project: Path, tmp_path: Path
) -> None:
    """Prompts on a topic no atom holds get nothing, as before; once the team opts in, each
    session counts the topic's words (never the prompt) and `memkit health` lists those asked
    in three sessions. Off (the default), nothing is counted."""
    config = project / "memkit.yaml"
    with fake_api() as (api, url):
        run_claude(project, url, BLIND[0], tmp_path)  # off: nothing counted
        config.write_text(
            config.read_text(encoding="utf-8").replace("blind_spots: false", "blind_spots: true"),
            encoding="utf-8",
        )
        for prompt in BLIND:
            api.requests.clear()
            run_claude(project, url, prompt, tmp_path)
            assert "MEMKIT-MARK" not in "\n".join(api.messages_text())  # no atom served
    health = memkit("health", "--json", cwd=project)
    assert health.returncode == 0, health.stderr
    (line,) = [c for c in json.loads(health.stdout)["checks"] if c["kind"] == "blind"]
    assert "stripe (3 sessions)" in line["items"] and "webhook (3 sessions)" in line["items"]
    assert not any("signatur" in item or "payload" in item for item in line["items"])  # 1 each
    stored = (project / ".memkit/usage.db").read_bytes()
    assert b"verify its signature" not in stored and b"Stripe webhook" not in stored


def test_a_real_session_s_incident_is_no_pitfall_and_its_root_cause_decides_nothing(
    project: Path, tmp_path: Path
) -> None:
    """The user reports what happened; Claude finds the root cause. The report is no
    candidate, the root cause is a pitfall, and the summary lists it as learned, not decided."""
    with fake_api() as (api, url):
        api.answer = (
            "The root cause is that the handler is not idempotent: Stripe retries invoice.paid "
            "and we never dedupe on event.id."
        )
        run_claude(
            project, url, "The Stripe invoice.paid webhook charged a customer twice.", tmp_path
        )
    listed = json.loads(memkit("candidates", "list", "--json", cwd=project).stdout)
    (cand,) = listed["candidates"]
    assert cand["type"] == "pitfall" and cand["statement"].startswith("The root cause is")
    (summary,) = summaries(project)
    text = summary.read_text(encoding="utf-8")
    assert "## Decided" not in text and cand["id"] in text.split("## Learned")[1]
