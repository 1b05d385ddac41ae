"""Small things a newcomer ran into (issue 22), each in the state the newcomer met it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memkit.gate.score import score_atom
from tests.helpers import atom_text, commit_and_index, git, make_memory_repo, memkit, write_atom

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = make_memory_repo(tmp_path / "team")
    write_atom(
        repo,
        "shared/ws-heartbeat-interval.md",
        atom_text(
            "ws-heartbeat-interval",
            title="WebSocket heartbeat",
            extra="triggers: [websocket]\ncolour: blue\n",  # an unknown key: a warning
        ),
    )
    commit_and_index(repo)
    return repo


@pytest.mark.parametrize(
    "args",
    [
        ["search", "websocket"],
        ["search", "websocket", "--json"],
        ["show", "ws-heartbeat-interval"],
        ["validate"],
        ["gate"],
        ["doctor"],
        ["roles", "whoami"],
        ["review", "list"],
        ["index"],
        ["add", "Always ping the websocket gateway every 30 s from mobile clients", "--dry-run"],
        ["health"],
        ["health", "--markdown"],
        ["candidates", "list"],
        ["promote"],
        ["archive", "--suggest"],
        ["audit", "--all"],
        ["--help"],
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_a_closed_pipe_ends_every_command_quietly(repo: Path, args: list[str]) -> None:
    """`memkit … | head`: the reader is gone before memkit writes."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "memkit", *args],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    with proc.stderr:
        err = proc.stderr.read().decode()
    code = proc.wait(timeout=120)
    if args == ["--help"]:
        assert code in (0, 141), err  # argparse prints help before memkit's boundary
    else:
        assert code == 141, err
    assert "Traceback" not in err and "internal error" not in err
    assert "Exception ignored" not in err and "Broken pipe" not in err
    logs = Path(os.environ["MEMKIT_LOG_DIR"])
    assert not logs.exists() or not list(logs.glob("crash-*"))


def start_engine(repo: Path) -> subprocess.Popen[bytes]:
    engine = subprocess.Popen(
        [sys.executable, "-m", "memkit", "serve"],
        cwd=repo,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not (repo / ".memkit/engine.pid").exists():
        assert time.monotonic() < deadline, "the engine did not start"
        time.sleep(0.1)
    return engine


def test_serve_stop_tells_the_truth(repo: Path) -> None:
    assert memkit("serve", "--stop", cwd=repo).stdout == "memkit: no engine was running\n"
    engine = start_engine(repo)
    stopped = memkit("serve", "--stop", cwd=repo)
    assert stopped.stdout == f"memkit: engine stopped (pid {engine.pid})\n"
    assert engine.wait(timeout=5) == 0  # it had exited when --stop said so

    # A wedged engine (stopped, as if stuck): SIGTERM does nothing, so it is killed, and
    # --stop says so instead of claiming a clean stop.
    engine = start_engine(repo)
    os.kill(engine.pid, signal.SIGSTOP)
    try:
        wedged = memkit("serve", "--stop", "--wait", "1", cwd=repo)
        assert wedged.returncode == 0, wedged.stderr
        assert wedged.stdout == (
            f"memkit: the engine (pid {engine.pid}) did not exit within 1 s; killed it\n"
        )
        assert engine.wait(timeout=5) == -signal.SIGKILL
        assert not (repo / ".memkit/engine.pid").exists()
        assert not (repo / ".memkit/engine.sock").exists()
    finally:
        if engine.poll() is None:
            engine.kill()
            engine.wait()


def added(repo: Path, text: str, *args: str) -> dict[str, object]:
    result = memkit("add", text, "--json", *args, cwd=repo)
    assert result.returncode in (0, 1), result.stderr
    data = json.loads(result.stdout)
    assert isinstance(data, dict)
    return data


def test_add_takes_the_author_from_the_identity_git_commits_with(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = repo.parent / "gitconfig-without-user"
    config.write_text("[init]\n\tdefaultBranch = main\n", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Alice Test")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "alice@example.com")
    out = added(repo, "Always run database migrations before deploying the API server.")
    assert out["written"], out
    text = (repo / str(out["path"])).read_text(encoding="utf-8")
    assert "\nauthor: alice@example.com\n" in text
    mine = added(
        repo, "Remember: my staging database is db.staging.internal:5432.", "--scope", "personal"
    )
    assert str(mine["path"]).startswith("personal/alice-test/"), mine


def test_add_names_a_chinese_atom_by_what_an_id_can_spell(repo: Path) -> None:
    out = added(repo, "Kafka 的分區數量一律設成 6，資料保留 30 天，以後新主題都照這個設定。")
    atom_id = str(out["id"])
    assert atom_id.startswith("kafka-")
    assert atom_id != "kafka-6-30"
    assert len(atom_id) == len("kafka-") + 8  # the Latin word and a short hash
    assert out["path"] == f"shared/{atom_id}.md"


def test_add_cuts_a_long_title_between_words_and_at_a_real_sentence_end(repo: Path) -> None:
    text = (
        "Always pin the PostgreSQL client library to version 16.2 because older releases "
        "break the connection pool in production. The billing service depends on it."
    )
    out = added(repo, text, "--dry-run")
    dry = memkit("add", text, "--dry-run", cwd=repo).stdout
    heading = next(line for line in dry.splitlines() if line.startswith("# "))
    assert heading == "# Always pin the PostgreSQL client library to version 16.2 because older…"
    assert out["id"] == "always-pin-the-postgresql-client-library-to-version-16-2"


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("From now on we deploy with Argo CD.", "Deploy with Argo CD"),
        ("Remember that the API gateway times out at 30 s.", "The API gateway times out at 30 s"),
        ("Going forward, you should always pin Python in CI.", "Always pin Python in CI"),
        ("From now on we are on call in pairs.", "We are on call in pairs"),  # a description
        ("從現在開始我們統一用 uv 管理 Python 依賴。", "統一用 uv 管理 Python 依賴"),
        ("Remember this.", "Remember this"),  # nothing would be left
    ],
)
def test_add_titles_a_rule_by_what_it_says_not_how_it_was_announced(
    repo: Path, text: str, title: str
) -> None:
    """Captured decisions start alike ("From now on we…"): a title and an id made of those
    words would say nothing. The body keeps the user's words."""
    dry = memkit("add", text, "--dry-run", cwd=repo).stdout
    assert next(line for line in dry.splitlines() if line.startswith("# ")) == f"# {title}"
    assert text in dry


def test_a_short_note_is_counted_once_and_refused_once(repo: Path) -> None:
    # 15 characters; read twice (heading and body) it would earn the 20-character rule.
    result = memkit("add", "ping every 30 s", cwd=repo)
    assert result.returncode == 1, result.stdout
    assert "MK101 quality 0.25 fail; fired: concrete_value" in result.stdout
    assert "length_20 +" not in result.stdout
    assert result.stdout.count("quality 0.25") == 1  # the finding; not repeated below it


def test_quality_never_exceeds_one() -> None:
    body = (
        "# Always pin PostgreSQL 16.2\n\nAlways pin the PostgreSQL client library to "
        "version 16.2; use `psycopg` 3 instead of psycopg2 for the billing API service."
    )
    score = score_atom("Always pin PostgreSQL 16.2", body, "fact")
    assert sum(h.weight for h in score.hits) > 1.0
    assert score.score == 1.0
    assert score.explain().startswith("quality 1.00 pass")


def test_add_never_names_an_atom_after_a_secret(repo: Path) -> None:
    key = "AKIAIOSFODNN7EXAMPLE"
    for text in (
        f"{key} is the deploy key of the staging bucket in us-east-1",
        f"The deploy key is {key} for the staging bucket",
        key,
    ):
        result = memkit("add", text, "--json", cwd=repo)
        out = json.loads(result.stdout)
        assert result.returncode == 1
        assert "MK110" in " ".join(out["findings"])
        assert key.lower() not in str(out["id"]) and key not in str(out["path"])
        assert key.lower() not in str(out["path"]).lower()
        dry = memkit("add", text, "--dry-run", cwd=repo).stdout
        assert key not in dry  # a refused text is not shown back, not even as a title
    assert not list((repo / "shared").glob("*akia*"))


def test_a_byte_order_mark_is_not_an_injection(repo: Path) -> None:
    text = atom_text(
        "bom-atom", body="- The balancer drops idle sockets after 60 s; ping every 30 s."
    )
    (repo / "shared/bom-atom.md").write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    result = memkit("validate", "shared/bom-atom.md", cwd=repo)
    assert result.returncode == 0
    assert result.stdout == ""
    # An invisible character anywhere else is still reported.
    (repo / "shared/bom-atom.md").write_text(text.replace("idle", "id\ufeffle"), encoding="utf-8")
    assert "MK112" in memkit("validate", "shared/bom-atom.md", cwd=repo).stdout


def test_the_plugin_does_not_send_users_to_an_unrelated_pypi_package() -> None:
    description = json.loads((ROOT / "hooks/hooks.json").read_text(encoding="utf-8"))["description"]
    assert "Needs `pip install memkit`" not in description
    assert "git+" in description and "unrelated" in description


def test_install_claude_twice_says_already_installed(repo: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    args = ("install", "claude", "--project", str(project), "--repo", str(repo))
    first = memkit(*args, cwd=tmp_path)
    assert first.stdout.startswith("memkit: installed memkit's hooks in ")
    again = memkit(*args, cwd=tmp_path)
    assert again.stdout.startswith("memkit: memkit's hooks are already installed in ")
    off = ("install", "claude", "--project", str(project), "--uninstall")
    assert memkit(*off, cwd=tmp_path).stdout.startswith("memkit: removed memkit's hooks from")
    assert memkit(*off, cwd=tmp_path).stdout.startswith("memkit: memkit's hooks were not in")


def test_review_says_what_it_did_in_english(repo: Path) -> None:
    write_atom(
        repo,
        "shared/_pending/use-mongo.md",
        atom_text("use-mongo", type_="decision", body="- Always use MongoDB 7 for logs."),
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pending")
    rejected = memkit("review", "reject", "use-mongo", "--reason", "Postgres only", cwd=repo)
    assert rejected.stdout.startswith("rejected use-mongo: "), rejected.stdout
    assert "rejectd" not in rejected.stdout
