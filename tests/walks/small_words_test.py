"""Small wrong words a team met in its first two weeks (issue 41, item 10), each where a
person reads it: CI's report, a hook's context, `memkit health`, `memkit show`, the template
`memkit.yaml`, a trigger's refusal. (A proposal's `created:` date written quoted is item 3's,
in `two_weeks_of_a_team_test.py`.)"""

from __future__ import annotations

import re
from pathlib import Path

from ruamel.yaml import YAML

from memkit.capture.episodic import folder as episodic_folder
from memkit.lifecycle.settings import PromoteSettings
from memkit.recall.fence import is_fenced
from memkit.template import template_root
from tests.helpers import (
    atom_text,
    commit_and_index,
    context,
    git,
    make_memory_repo,
    memkit,
    run_hook,
    write_atom,
)
from tests.hints.team import REDIS_NEW, REDIS_OLD


def test_ci_names_a_port_a_value_not_a_version(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team")
    write_atom(
        repo, "shared/redis-port.md", atom_text("redis-port", body="- Redis listens on port 6379.")
    )
    commit_and_index(repo)
    git(repo, "checkout", "--quiet", "-b", "change")
    write_atom(
        repo,
        "shared/redis-new-port.md",
        atom_text("redis-new-port", body="- Redis listens on port 6380."),
    )
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "--no-verify", "-m", "port")
    done = memkit("ci", "--base", "main", "--actor", "alice-test", cwd=repo)
    (line,) = [x for x in done.stdout.splitlines() if " MK301 " in x]
    assert "different values for port: 6380 vs 6379" in line, line
    assert "versions" not in line


# A pitfall the prompts name by trigger, and facts they only share words with: the weakest
# match came out at "score -0.04" (issue 41).
WEAK_MATCHES = (
    (
        "ws-ping",
        "pitfall",
        "WebSocket clients send a ping every 30 s; the balancer drops idle sockets at 60 s.",
        "triggers: [websocket]\n",
    ),
    (
        "ws-back",
        "procedure",
        "After a dropped WebSocket connection, reconnect with backoff 1 s, 2 s, 4 s.",
        "",
    ),
    ("lb-idle", "fact", "The load balancer drops idle TCP connections after 60 s of silence.", ""),
    (
        "ping-tool",
        "fact",
        "Use the ping tool to check the balancer is reachable every morning.",
        "",
    ),
)


def test_a_hook_never_shows_a_score_below_zero(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team")
    for atom_id, kind, body, extra in WEAK_MATCHES:
        text = atom_text(atom_id, type_=kind, confidence="tentative", body=f"- {body}", extra=extra)
        write_atom(repo, f"shared/{atom_id}.md", text)
    commit_and_index(repo)
    scores = []
    for n, prompt in enumerate(
        (
            "why does the balancer drop idle websocket sockets after 60 s without a ping",
            "websocket ping balancer idle",
        )
    ):
        payload = {"session_id": f"s{n}", "prompt": prompt}
        text = context(run_hook("user-prompt-submit", payload, repo), "UserPromptSubmit")
        scores += re.findall(r"; score (-?\d+\.\d+)", text)
    assert len(scores) >= 3, scores
    assert not [s for s in scores if s.startswith("-")], scores


def test_waiting_candidates_are_said_inside_a_fence(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team")
    write_atom(repo, "shared/ws.md", atom_text("ws", extra="triggers: [websocket]\n"))
    commit_and_index(repo)
    rule = "From now on we deploy with Argo CD, never by hand."
    run_hook("user-prompt-submit", {"session_id": "n1", "prompt": rule}, repo)
    start = {"session_id": "n2", "source": "startup"}
    text = context(run_hook("session-start", start, repo), "SessionStart")
    assert "1 candidate from your last sessions: `memkit candidates list`" in text
    assert "\u2039" not in text and "<memkit-index repo=" in text
    assert is_fenced(text)


def test_health_does_not_say_none_beside_the_usage_it_counts(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team")
    write_atom(repo, "shared/ws.md", atom_text("ws", extra="triggers: [websocket]\n"))
    commit_and_index(repo)
    payload = {"session_id": "s1", "prompt": "how often should a websocket ping"}
    assert "## ws" in context(run_hook("user-prompt-submit", payload, repo))
    out = memkit("health", cwd=repo).stdout
    assert "usage from: this clone's usage log" in out
    (line,) = [x for x in out.splitlines() if "usage data" in x]
    assert "none" not in line, out


def test_show_of_a_superseded_atom_names_what_replaced_it(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team")
    write_atom(repo, "shared/redis-port-6379.md", REDIS_OLD)
    write_atom(repo, "shared/redis-port-6380.md", REDIS_NEW)
    commit_and_index(repo)
    shown = memkit("show", "redis-port-6379", cwd=repo).stdout
    assert shown.split("\n")[1] == (
        "# superseded by redis-port-6380 (shared/redis-port-6380.md): `memkit show redis-port-6380`"
    )
    assert "superseded by" not in memkit("show", "redis-port-6380", cwd=repo).stdout


def test_the_template_settings_say_what_the_code_does() -> None:
    text = (template_root() / "memkit.yaml").read_text(encoding="utf-8")
    commented = re.search(r"^# lifecycle:\n((?:#.*\n)+)", text, re.M)
    assert commented is not None
    block = "lifecycle:\n" + "".join(
        line[2:] + "\n" for line in commented.group(1).splitlines() if line.startswith("#  ")
    )
    promote = YAML(typ="safe").load(block)["lifecycle"]["promote"]
    defaults = PromoteSettings()
    for key, value in promote.items():
        assert value == getattr(defaults, key), (key, value)
    assert "distinct days" in commented.group(1) and "sessions" not in re.sub(
        r"\w+_sessions", "", commented.group(1)
    )
    episodic = re.search(r"^  episodic:\n    enabled: true +# (.*)$", text, re.M)
    assert episodic is not None
    where = episodic_folder(Path()).as_posix() + "/"
    assert where in episodic.group(1), (where, episodic.group(1))


def test_a_short_tool_name_as_trigger_is_told_to_make_a_phrase(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team")
    write_atom(
        repo,
        "shared/use-uv.md",
        atom_text("use-uv", body="- Python projects lock with uv 0.5.", extra="triggers: [uv]\n"),
    )
    out = memkit("validate", "shared/use-uv.md", cwd=repo).stdout
    (line,) = [x for x in out.splitlines() if " MK021 " in x]
    assert "`uv lock`" in line and "not `the`" not in line, line
