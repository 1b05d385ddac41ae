"""The write gate through real `git commit` with the real pre-commit and the real model."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers import atom_text, git, make_memory_repo, memkit, write_atom

HEARTBEAT = (
    "- Always send a WebSocket ping every 30 s; the load balancer drops idle connections "
    "after 60 s."
)
HEARTBEAT_ZH = "- WebSocket 連線必須每 30 秒送一次心跳,負載平衡器 60 秒沒流量就會斷線。"


def commit(repo: Path, env: dict[str, str] | None = None) -> tuple[int, str]:
    """`git add -A` and `git commit` through the hooks (`env`: the committer's variables)."""
    git(repo, "add", "-A")
    result = subprocess.run(
        ["git", "commit", "-m", "memory"],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=False,
    )
    return result.returncode, result.stdout + result.stderr


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = make_memory_repo(tmp_path / "team")
    write_atom(
        repo,
        "shared/ws-heartbeat-interval.md",
        atom_text("ws-heartbeat-interval", title="WebSocket heartbeat", body=HEARTBEAT),
    )
    write_atom(
        repo,
        "shared/ws-heartbeat-zh.md",
        atom_text("ws-heartbeat-zh", title="WebSocket 心跳間隔", body=HEARTBEAT_ZH),
    )
    rc, out = commit(repo)
    assert rc == 0, out
    return repo


@pytest.mark.parametrize(
    ("title", "body"),
    [("Standup", "lol that meeting was fun today"), ("站會", "哈哈今天的會好好玩")],
    ids=["en", "zh"],
)
def test_junk_is_refused_with_its_score(repo: Path, title: str, body: str) -> None:
    write_atom(repo, "shared/standup.md", atom_text("standup", title=title, body=body))
    rc, out = commit(repo)
    assert rc == 1
    assert "shared/standup.md:1:1: MK101 quality" in out
    assert "to improve:" in out


@pytest.mark.parametrize(
    ("title", "body"),
    [
        (
            "Run migrations before deploy",
            "- Always run `make migrate` before deploying the API; a missing table crashes it.",
        ),
        ("部署前先跑遷移", "- 記住:部署 API 之前必須先執行 make migrate,否則缺資料表會啟動失敗。"),
    ],
    ids=["en", "zh"],
)
def test_a_good_atom_is_accepted_and_its_score_shown(repo: Path, title: str, body: str) -> None:
    write_atom(repo, "shared/migrate-first.md", atom_text("migrate-first", title=title, body=body))
    rc, out = commit(repo)
    assert rc == 0, out
    assert "shared/migrate-first.md: quality" in out and "pass" in out


@pytest.mark.parametrize(
    ("title", "body", "original"),
    [
        ("WebSocket heartbeat", HEARTBEAT, "ws-heartbeat-interval"),
        ("WebSocket 心跳間隔", HEARTBEAT_ZH, "ws-heartbeat-zh"),
    ],
    ids=["en", "zh"],
)
def test_a_duplicate_is_refused_naming_the_original(
    repo: Path, title: str, body: str, original: str
) -> None:
    write_atom(
        repo, "shared/heartbeat-copy.md", atom_text("heartbeat-copy", title=title, body=body)
    )
    rc, out = commit(repo)
    assert rc == 1
    assert f"MK103 duplicate of `{original}`" in out


def test_a_secret_is_refused_without_printing_it(repo: Path) -> None:
    secret = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"  # noqa: S105  (a fake token to catch)
    write_atom(
        repo,
        "shared/ci-token.md",
        atom_text(
            "ci-token", title="CI token", body=f"- Always use the CI token {secret} for releases."
        ),
    )
    rc, out = commit(repo)
    assert rc == 1
    assert "shared/ci-token.md:9:" in out and "MK110 possible secret (GitHub token" in out
    assert secret not in out


def test_a_chinese_secret_is_refused(repo: Path) -> None:
    write_atom(
        repo,
        "shared/db-password.md",
        atom_text(
            "db-password",
            title="資料庫密碼",
            body="- 正式環境資料庫密碼是 Zx9Qw3Er7Ty1Ui5O,必須保密。",
        ),
    )
    rc, out = commit(repo)
    assert rc == 1
    assert "MK110" in out
    assert "Zx9Qw3Er7Ty1Ui5O" not in out


def test_a_private_block_is_refused(repo: Path) -> None:
    write_atom(
        repo,
        "shared/deploy-keys.md",
        atom_text(
            "deploy-keys",
            title="Deploy keys",
            body="- Always rotate deploy keys every 90 days.\n"
            "<private>vault path: ops/keys</private>",
        ),
    )
    rc, out = commit(repo)
    assert rc == 1
    assert "MK111 <private> block" in out


def test_memkit_add_writes_through_the_gate(repo: Path) -> None:
    result = memkit(
        "add",
        "Always pin Node to v20.11.1 in CI images; v21 breaks the SSR build.",
        "--type",
        "decision",
        "--trigger",
        "node",
        cwd=repo,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (
        "wrote shared/always-pin-node-to-v20-11-1-in-ci-images-v21-breaks-the-ssr.md"
        in result.stdout
        or "wrote shared/" in result.stdout
    )
    junk = memkit("add", "ok thanks", cwd=repo)
    assert junk.returncode == 1
    assert "MK101" in junk.stdout and "refused" in junk.stdout
    dup = memkit("add", HEARTBEAT.lstrip("- "), "--title", "WebSocket heartbeat", cwd=repo)
    assert dup.returncode == 1
    assert "ws-heartbeat-interval" in dup.stdout
    dry = memkit("add", "以後一律用 pnpm 安裝前端依賴,不要用 npm。", "--dry-run", cwd=repo)
    assert dry.returncode == 0, dry.stdout
    assert "type: fact" in dry.stdout and "以後一律用 pnpm" in dry.stdout
    assert "wrote" not in dry.stdout


def test_an_update_the_words_call_a_copy_has_a_way_on(repo: Path) -> None:
    """Issue 38: a real line of public history whose update the words call a copy (cosine
    0.94). Bob, no management, his identity only in GIT_AUTHOR_*, follows the printed fix:
    the commit passes and the newer value is the one served."""
    old = "- `src/client/` — Browser-side runtime code (runs in iframe)"
    new = (
        "- `src/client/` — Browser-side runtime code (top-level page in headless runs, iframe "
        "in headed runs)"
    )
    write_atom(
        repo, "shared/client-code.md", atom_text("client-code", title="Client code", body=old)
    )
    rc, out = commit(repo)
    assert rc == 0, out
    bob = {"GIT_AUTHOR_NAME": "Bob", "GIT_AUTHOR_EMAIL": "bob@example.com"}
    write_atom(
        repo, "shared/client-runtime.md", atom_text("client-runtime", title="Client code", body=new)
    )
    rc, printed = commit(repo, bob)
    assert rc == 1, printed
    fix = "add `supersedes: [client-code]` if this one replaces it"
    assert "MK103 duplicate of `client-code`" in printed and fix in printed, printed
    write_atom(
        repo,
        "shared/client-runtime.md",
        atom_text(
            "client-runtime", title="Client code", body=new, extra="supersedes: [client-code]\n"
        ),
    )
    rc, printed = commit(repo, bob)
    assert rc == 0, printed
    served = memkit("search", "what is in src/client", "--json", cwd=repo)
    ids = [hit["id"] for hit in json.loads(served.stdout)["results"]]
    assert "client-runtime" in ids and "client-code" not in ids, ids
