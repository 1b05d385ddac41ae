"""The org's atoms in a prompt (issue 46), through the real hook and the warm engine: only when
the repository configured `org.recall`, after the team's own atoms, nothing twice a session;
a Milvus that hangs costs the prompt nothing but the org's atoms; a command gets the Milvus
Lite file the engine holds, and the engine serves what it published next.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memkit.recall.client import ask
from tests.helpers import (
    atom_text,
    context,
    engine_running,
    git,
    make_memory_repo,
    memkit,
    never_answering,
    run_hook,
    write_atom,
)

HEARTBEAT = "how often must a websocket send a heartbeat ping to the load balancer"


def _repos(base: Path, uri: str, *, timeout_ms: int = 1000) -> tuple[Path, Path]:
    """`platform` (published to the org) and `payments` (the session's, org recall on)."""
    platform = make_memory_repo(base / "platform", hooks=False)
    write_atom(
        platform,
        "shared/ws-heartbeat.md",
        atom_text(
            "ws-heartbeat",
            title="WebSocket connections need a 30 s heartbeat",
            body="- The load balancer drops idle WebSocket connections after 60 s; "
            "send a heartbeat ping every 30 s.",
            extra="triggers: [websocket, heartbeat]\n",
        ),
    )
    payments = make_memory_repo(base / "payments", hooks=False)
    write_atom(
        payments,
        "shared/refund-idempotency.md",
        atom_text(
            "refund-idempotency",
            title="Refunds need an idempotency key",
            body="- Every refund call to the gateway carries an idempotency key.",
            extra="triggers: [refund]\n",
        ),
    )
    config = payments / "memkit.yaml"
    config.write_text(
        config.read_text(encoding="utf-8")
        + f"\norg:\n  uri: {uri}\n  recall: true\n  search: true\n  timeout_ms: {timeout_ms}\n",
        encoding="utf-8",
    )
    for repo in (platform, payments):
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "--no-verify", "-m", "atoms")
        assert memkit("index", cwd=repo).returncode == 0
    return platform, payments


def _prompt(repo: Path, prompt: str, session: str) -> str:
    payload = {"session_id": session, "prompt": prompt}
    return context(run_hook("user-prompt-submit", payload, repo, repo, engine=True))


def _until_org(repo: Path, prompt: str, tag: str, seconds: float = 90) -> tuple[str, str]:
    """The prompt asked again (a new session each time) until the org's atom comes: the
    engine opens the org (pymilvus, the Lite file, the model) in a thread when it starts, and
    the prompts meanwhile go without the org's atoms rather than wait. Returns what the last
    prompt was given, and its session."""
    deadline = time.monotonic() + seconds
    attempt = 0
    while True:
        session = f"{tag}{attempt}"
        said = _prompt(repo, prompt, session)
        if "ws-heartbeat" in said or time.monotonic() > deadline:
            return said, session
        attempt += 1
        time.sleep(1)


def test_the_engine_adds_the_orgs_atoms_to_a_prompt(tmp_path: Path) -> None:
    lite = tmp_path / "org.db"
    platform, payments = _repos(tmp_path, str(lite))
    published = memkit("org", "publish", "--uri", str(lite), str(platform), cwd=tmp_path)
    assert published.returncode == 0, published.stderr
    with engine_running(payments):
        said, session = _until_org(payments, HEARTBEAT, "s")
        assert "platform:ws-heartbeat" in said
        assert "from the platform team's memory" in said
        assert "ping every 30 s" in said or "heartbeat ping every 30 s" in said
        # Nothing twice in a session; nothing for a prompt the org knows nothing of.
        assert "ws-heartbeat" not in _prompt(payments, HEARTBEAT, session)
        assert "platform" not in _prompt(payments, "what colour is the office carpet", "s9")
        # The team's own atom is served as always, and the org's beside it.
        both = _prompt(payments, "refund idempotency key and the websocket heartbeat ping", "t1")
        assert "refund-idempotency" in both

        # A command takes the Lite file from the engine (it asks, the engine lets go), and
        # the engine serves what was published next.
        write_atom(
            platform,
            "shared/ws-heartbeat.md",
            atom_text(
                "ws-heartbeat",
                title="WebSocket connections need a 20 s heartbeat",
                body="- The new balancer drops idle connections after 40 s; "
                "send a heartbeat ping every 20 s.",
                extra="triggers: [websocket, heartbeat]\n",
            ),
        )
        git(platform, "commit", "-qam", "20 s", "--no-verify")
        again = memkit("org", "publish", "--uri", str(lite), str(platform), cwd=tmp_path)
        assert again.returncode == 0, again.stderr
        assert "1 written" in again.stdout
        assert "every 20 s" in _until_org(payments, HEARTBEAT, "u")[0]


def test_without_org_recall_no_prompt_asks_the_org(tmp_path: Path) -> None:
    lite = tmp_path / "org.db"
    platform, payments = _repos(tmp_path, str(lite))
    config = payments / "memkit.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("recall: true", "recall: false"), "utf-8"
    )
    assert memkit("org", "publish", "--uri", str(lite), str(platform), cwd=tmp_path).returncode == 0
    with engine_running(payments):
        for attempt in range(3):
            assert "ws-heartbeat" not in _prompt(payments, HEARTBEAT, f"s{attempt}")
    # The engine never opened the file: it is free, and no process holds it.
    from memkit.org.lease import held

    assert not held(lite)


@pytest.fixture
def hanging_milvus() -> Iterator[str]:
    """A 'Milvus' on loopback that takes connections and never answers."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    with never_answering(server):
        yield f"http://127.0.0.1:{server.getsockname()[1]}"


def test_a_hanging_milvus_costs_a_prompt_nothing_but_the_orgs_atoms(
    tmp_path: Path, hanging_milvus: str
) -> None:
    """The engine asked directly (no hook falling back on itself): every answer holds the
    team's own atom, and none waits for the org, whose connection hangs for 5 s and then
    rests the org (a prompt that waited for it would take that long)."""
    _, payments = _repos(tmp_path, hanging_milvus, timeout_ms=300)
    payload = {"cwd": str(payments), "prompt": "refund idempotency key for the gateway"}
    with engine_running(payments):
        took = []
        for attempt in range(4):
            started = time.monotonic()
            raw = ask(
                payments,
                "user-prompt-submit",
                json.dumps({**payload, "session_id": f"s{attempt}"}),
                [str(payments)],
                timeout=60,
            )
            took.append(time.monotonic() - started)
            said = json.loads(raw)["hookSpecificOutput"]["additionalContext"]
            assert "refund-idempotency" in said
            assert "org" not in said.split("refund-idempotency", 1)[1].split("\n## ", 1)[0]
        # The first may meet the engine's warm-up (and the client's import); after it, none
        # waits for the hanging connection.
        assert max(took[1:]) < 4.0, took
    log = payments / ".memkit/logs/hooks.log"
    assert not log.exists() or "Traceback" not in log.read_text(encoding="utf-8", errors="replace")
