"""`memkit add`: the author git commits with, ids and titles made of what the text says,
never of a secret; a short note counted and refused once (issue 22)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.damage_test import in_namespace, needs_mounts
from tests.helpers import memkit


def added(repo: Path, text: str, *args: str) -> dict[str, object]:
    result = memkit("add", text, "--json", *args, cwd=repo)
    assert result.returncode in (0, 1), result.stderr
    data = json.loads(result.stdout)
    assert isinstance(data, dict)
    return data


def test_add_takes_the_author_from_the_identity_git_commits_with(
    heartbeat_team: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = heartbeat_team.parent / "gitconfig-without-user"
    config.write_text("[init]\n\tdefaultBranch = main\n", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Alice Test")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "alice@example.com")
    out = added(heartbeat_team, "Always run database migrations before deploying the API server.")
    assert out["written"], out
    text = (heartbeat_team / str(out["path"])).read_text(encoding="utf-8")
    assert "\nauthor: alice@example.com\n" in text
    mine = added(
        heartbeat_team,
        "Remember: my staging database is db.staging.internal:5432.",
        "--scope",
        "personal",
    )
    assert str(mine["path"]).startswith("personal/alice-test/"), mine


def test_add_names_a_chinese_atom_by_what_an_id_can_spell(heartbeat_team: Path) -> None:
    out = added(
        heartbeat_team, "Kafka 的分區數量一律設成 6，資料保留 30 天，以後新主題都照這個設定。"
    )
    atom_id = str(out["id"])
    assert atom_id.startswith("kafka-")
    assert atom_id != "kafka-6-30"
    assert len(atom_id) == len("kafka-") + 8  # the Latin word and a short hash
    assert out["path"] == f"shared/{atom_id}.md"


def test_add_cuts_a_long_title_between_words_and_at_a_real_sentence_end(
    heartbeat_team: Path,
) -> None:
    text = (
        "Always pin the PostgreSQL client library to version 16.2 because older releases "
        "break the connection pool in production. The billing service depends on it."
    )
    out = added(heartbeat_team, text, "--dry-run")
    dry = memkit("add", text, "--dry-run", cwd=heartbeat_team).stdout
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
    heartbeat_team: Path, text: str, title: str
) -> None:
    """Captured decisions start alike ("From now on we…"): a title and an id made of those
    words would say nothing. The body keeps the user's words."""
    dry = memkit("add", text, "--dry-run", cwd=heartbeat_team).stdout
    assert next(line for line in dry.splitlines() if line.startswith("# ")) == f"# {title}"
    assert text in dry


def test_a_short_note_is_counted_once_and_refused_once(heartbeat_team: Path) -> None:
    # 15 characters; read twice (heading and body) it would earn the 20-character rule.
    result = memkit("add", "ping every 30 s", cwd=heartbeat_team)
    assert result.returncode == 1, result.stdout
    assert "MK101 quality 0.25 fail; fired: concrete_value" in result.stdout
    assert "length_20 +" not in result.stdout
    assert result.stdout.count("quality 0.25") == 1  # the finding; not repeated below it


def test_add_never_names_an_atom_after_a_secret(heartbeat_team: Path) -> None:
    key = "AKIAIOSFODNN7EXAMPLE"
    for text in (
        f"{key} is the deploy key of the staging bucket in us-east-1",
        f"The deploy key is {key} for the staging bucket",
        key,
    ):
        result = memkit("add", text, "--json", cwd=heartbeat_team)
        out = json.loads(result.stdout)
        assert result.returncode == 1
        assert "MK110" in " ".join(out["findings"])
        assert key.lower() not in str(out["id"]) and key not in str(out["path"])
        assert key.lower() not in str(out["path"]).lower()
        dry = memkit("add", text, "--dry-run", cwd=heartbeat_team).stdout
        assert key not in dry  # a refused text is not shown back, not even as a title
    assert not list((heartbeat_team / "shared").glob("*akia*"))


@needs_mounts
def test_add_on_a_full_disk_says_so_and_leaves_nothing(memory_repo: Path) -> None:
    """Issue 40: `memkit add` on a full disk ended in "internal error"."""
    fill = (
        "mount -t tmpfs -o size=64k,mode=755 tmpfs shared\n"
        "dd if=/dev/zero of=shared/filler bs=4k count=64 2>/dev/null || true\n"
        "rm -f shared/filler.part\n"
    )
    text = "Always pin the Node.js version in .nvmrc; CI reads it (node 20.11)."
    ((rc, said), (_, listing)) = in_namespace(
        memory_repo,
        fill,
        f"{sys.executable} -m memkit add '{text}' --type fact",
        "ls -a shared",
    )
    assert rc == 1, said
    assert "No space left on device" in said and "nothing was written" in said
    assert "internal error" not in said
    assert ".md" not in listing and ".tmp" not in listing
