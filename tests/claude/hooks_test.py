"""memkit's Claude Code handlers on recorded-shape payloads, in fresh processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memkit.recall.budget import budget_for, estimate_tokens
from tests.helpers import (
    atom_text,
    commit_and_index,
    context,
    make_memory_repo,
    run_hook,
    write_atom,
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = make_memory_repo(tmp_path / "team")
    write_atom(
        repo,
        "shared/ws-heartbeat-interval.md",
        atom_text(
            "ws-heartbeat-interval",
            title="WebSocket heartbeat",
            type_="pitfall",
            body="- Send a WebSocket ping every 30 s.",
            extra="triggers: [websocket]\nrelated: [ws-backoff]\n",
        ),
    )
    write_atom(
        repo,
        "shared/ws-backoff.md",
        atom_text(
            "ws-backoff",
            title="Reconnect with backoff",
            body="- Reconnect with exponential backoff up to 60 s.",
        ),
    )
    write_atom(
        repo,
        "shared/ws-old.md",
        atom_text(
            "ws-old",
            title="WebSocket ping 60 s",
            body="- WebSocket ping every 60 s.",
            extra="triggers: [websocket]\n",
        ),
    )
    write_atom(
        repo,
        "shared/ws-new.md",
        atom_text(
            "ws-new",
            title="WebSocket ping 30 s",
            body="- WebSocket ping every 30 s, see above.",
            extra="triggers: [websocket]\nsupersedes: [ws-old]\n",
        ),
    )
    commit_and_index(repo)
    return repo


def test_prompt_recall_with_reasons_related_and_supersedes(repo: Path) -> None:
    payload = {
        "session_id": "s1",
        "cwd": str(repo),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "how often should the websocket ping?",
    }
    text = context(run_hook("user-prompt-submit", payload, repo), "UserPromptSubmit")
    assert "## ws-heartbeat-interval" in text and "(why: trigger 'websocket'" in text
    assert "## ws-backoff" in text and "related to ws-heartbeat-interval" in text
    assert "## ws-new" in text and "## ws-old" not in text  # superseded by a candidate
    assert text.startswith("<memkit-memory>") and "not instructions" in text
    again = run_hook("user-prompt-submit", payload, repo)
    assert again.stdout == ""  # nothing twice in a session
    run_hook("pre-compact", {"session_id": "s1", "cwd": str(repo)}, repo)
    assert "ws-heartbeat-interval" in context(
        run_hook("user-prompt-submit", payload, repo), "UserPromptSubmit"
    )


def test_private_text_is_not_used(repo: Path) -> None:
    payload = {
        "session_id": "s2",
        "cwd": str(repo),
        "prompt": "hello <private>websocket secret plans</private> there",
    }
    assert run_hook("user-prompt-submit", payload, repo).stdout == ""
    assert "websocket" not in (repo / ".memkit/usage.db").read_bytes().decode("latin-1")


def test_session_start_index(repo: Path) -> None:
    text = context(
        run_hook("session-start", {"session_id": "s", "cwd": str(repo), "source": "startup"}, repo),
        "SessionStart",
    )
    assert "- ws-heartbeat-interval · pitfall · WebSocket heartbeat" in text
    assert "memkit search" in text
    assert estimate_tokens(text) <= 1_000


def test_post_tool_use_blocks_an_invalid_atom(repo: Path) -> None:
    bad = write_atom(repo, "shared/broken.md", "---\nid: broken\n---\n")
    result = run_hook(
        "post-tool-use",
        {
            "session_id": "s",
            "cwd": str(repo),
            "tool_name": "Write",
            "tool_input": {"file_path": str(bad)},
            "tool_response": {},
        },
        repo,
    )
    data = json.loads(result.stdout)
    assert data["decision"] == "block"
    assert "shared/broken.md:2:1: MK005" in data["reason"]
    good = repo / "shared/ws-backoff.md"
    ok = run_hook(
        "post-tool-use",
        {
            "session_id": "s",
            "cwd": str(repo),
            "tool_name": "Edit",
            "tool_input": {"file_path": str(good)},
        },
        repo,
    )
    assert ok.stdout == ""


@pytest.mark.parametrize(
    "raw",
    ["", "not json", "[1, 2]", '{"prompt": 5}', "{" * 100_000, "x" * 2_000_000],
    ids=["empty", "garbage", "array", "wrong-type", "deep", "huge"],
)
def test_bad_input_fails_open(repo: Path, raw: str) -> None:
    for event in (
        "session-start",
        "user-prompt-submit",
        "pre-tool-use",
        "post-tool-use",
        "pre-compact",
        "stop",
        "session-end",
    ):
        result = run_hook(event, None, repo, raw=raw)
        assert result.returncode == 0
        assert result.stdout in ("",) or json.loads(result.stdout)


def test_missing_index_answers_nothing_and_builds_one(repo: Path) -> None:
    import shutil
    import time

    shutil.rmtree(repo / ".memkit")
    result = run_hook(
        "user-prompt-submit", {"session_id": "s", "cwd": str(repo), "prompt": "websocket"}, repo
    )
    assert (result.returncode, result.stdout) == (0, "")
    for _ in range(100):
        if (repo / ".memkit/index/CURRENT").exists():
            break
        time.sleep(0.2)
    assert (repo / ".memkit/index/CURRENT").exists()


def test_budget_by_prompt_length() -> None:
    assert budget_for("short") == 1_500
    assert budget_for("x" * 120) == 3_000
    assert budget_for("x" * 500) == 5_000
    assert estimate_tokens("心跳間隔") == 6  # ~1.5 tokens a CJK character
    assert estimate_tokens("abcdefgh") == 2


def test_the_hook_path_stays_light(repo: Path) -> None:
    code = (
        "import io, sys, json\n"
        "from memkit.claude.protocol import fail_open\n"
        "from memkit.claude.handlers import user_prompt_submit\n"
        "from memkit.recall.readers import Readers\n"
        f"p = {{'session_id': 'x', 'cwd': {str(repo)!r}, 'prompt': 'websocket ping'}}\n"
        "out = io.StringIO()\n"
        "fail_open('user-prompt-submit', lambda d: user_prompt_submit(d, [], Readers(warm=False)),"
        " io.StringIO(json.dumps(p)), out)\n"
        "assert 'ws-heartbeat-interval' in out.getvalue(), out.getvalue()\n"
        "heavy = ('git', 'ruamel', 'mistune', 'model2vec', 'numpy', 'frontmatter', 'mcp',"
        " 'pydantic', 'anyio')\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
