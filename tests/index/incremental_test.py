"""The index on real repositories: incremental, atomic, refreshed by git hooks."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from memkit.index import open_index, refresh
from memkit.index.store import current_generation
from tests.helpers import atom_text, generation, git, make_memory_repo, memkit, write_atom

ATOMS = {
    "shared/ws-heartbeat-interval.md": atom_text(
        "ws-heartbeat-interval",
        title="WebSocket heartbeat",
        type_="pitfall",
        body="- The load balancer drops idle connections after 60 s; send a ping every 30 s.",
        extra="triggers: [websocket, heartbeat]\n",
    ),
    "shared/deploy-migrate.md": atom_text(
        "deploy-migrate",
        title="部署前先跑資料庫遷移",
        body="- 記住:部署 API 之前必須先執行 make migrate,否則缺資料表會啟動失敗。",
    ),
    "shared/test-before-deploy.md": atom_text(
        "test-before-deploy",
        title="デプロイ前のテスト",
        body="- デプロイの前に必ず統合テストを実行すること。",
    ),
    "roles/art/texture-size.md": atom_text(
        "texture-size",
        title="Texture atlas size",
        body="- Always export texture atlases at 2048 px; mobile GPUs reject 4096 px.",
    ),
    "shared/old-heartbeat.md": atom_text(
        "old-heartbeat",
        title="WebSocket heartbeat 60 s",
        body="- Send a WebSocket ping every 60 s.",
        extra="status: superseded\n",
    ),
}


def ids(root: Path, query: str, *, limit: int = 10, include_inactive: bool = False) -> list[str]:
    hits = open_index(root).search(query, limit=limit, include_inactive=include_inactive)
    return [h.id for h in hits]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = make_memory_repo(tmp_path / "team")
    for path, text in ATOMS.items():
        write_atom(repo, path, text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "atoms")
    refresh(repo)
    return repo


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("how often should the websocket ping", "ws-heartbeat-interval"),
        ("資料庫遷移", "deploy-migrate"),
        ("部署之前要做什麼", "deploy-migrate"),
        ("統合テスト", "test-before-deploy"),
        ("texture 大小 2048 px", "texture-size"),
        ("keep idle sockets from being dropped", "ws-heartbeat-interval"),
    ],
)
def test_queries_in_several_languages_find_their_atom(
    repo: Path, query: str, expected: str
) -> None:
    assert ids(repo, query, limit=1) == [expected]


def test_inactive_atoms_only_on_request(repo: Path) -> None:
    assert "old-heartbeat" not in ids(repo, "websocket ping 60 s")
    assert "old-heartbeat" in ids(repo, "websocket ping 60 s", include_inactive=True)


def test_results_say_why(repo: Path) -> None:
    (hit, *_) = open_index(repo).search("websocket")
    assert hit.id == "ws-heartbeat-interval"
    assert "trigger 'websocket'" in hit.why and "BM25 #1" in hit.why


def test_incremental_refresh_follows_changes(repo: Path) -> None:
    first = current_generation(repo)
    unchanged = refresh(repo)
    assert not unchanged.changed and current_generation(repo) == first
    write_atom(
        repo,
        "shared/new-atom.md",
        atom_text(
            "new-atom", title="Kafka offsets", body="- Commit Kafka offsets after processing."
        ),
    )
    (repo / "shared/deploy-migrate.md").unlink()
    stats = refresh(repo)
    assert (stats.indexed, stats.removed, stats.full) == (1, 1, False)
    assert ids(repo, "kafka offsets", limit=1) == ["new-atom"]
    assert "deploy-migrate" not in ids(repo, "資料庫遷移")
    assert current_generation(repo) != first


def test_git_hooks_keep_the_index_current(repo: Path, tmp_path: Path) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    write_atom(
        repo,
        "shared/kafka-offsets.md",
        atom_text(
            "kafka-offsets",
            title="Kafka offsets",
            body="- Always commit Kafka offsets after processing, never before.",
        ),
    )
    git(repo, "mv", "shared/deploy-migrate.md", "shared/migrate-first.md")
    text = (repo / "shared/migrate-first.md").read_text(encoding="utf-8")
    (repo / "shared/migrate-first.md").write_text(
        text.replace("deploy-migrate", "migrate-first"), encoding="utf-8"
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "feature")  # post-commit does not refresh; checkout does
    git(repo, "checkout", "-q", "main")  # post-checkout hook
    assert "kafka-offsets" not in ids(repo, "kafka offsets")
    merge = git(repo, "merge", "-q", "--no-ff", "-m", "merge", "feature")  # post-merge hook
    assert merge.returncode == 0
    assert ids(repo, "kafka offsets", limit=1) == ["kafka-offsets"]
    assert ids(repo, "資料庫遷移", limit=1) == ["migrate-first"]


def test_squash_merge_indexes_the_working_tree(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "squashed")
    write_atom(
        repo,
        "shared/kafka-offsets.md",
        atom_text(
            "kafka-offsets", title="Kafka offsets", body="- Commit Kafka offsets after processing."
        ),
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "feature")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--squash", "squashed")  # HEAD does not move
    assert ids(repo, "kafka offsets", limit=1) == ["kafka-offsets"]


def test_deleting_dot_memkit_loses_nothing(repo: Path) -> None:
    import shutil

    before = ids(repo, "websocket")
    shutil.rmtree(repo / ".memkit")
    result = memkit("search", "websocket", "--json", "--all-results", cwd=repo)
    assert result.returncode == 0, result.stderr
    assert [r["id"] for r in json.loads(result.stdout)["results"]] == before


def test_search_takes_several_words_without_quotes(repo: Path) -> None:
    unquoted = memkit("search", "kafka", "offsets", "--json", cwd=repo)
    assert unquoted.returncode == 0, unquoted.stderr
    quoted = memkit("search", "kafka offsets", "--json", cwd=repo)
    assert json.loads(unquoted.stdout)["results"] == json.loads(quoted.stdout)["results"]
    assert json.loads(unquoted.stdout)["query"] == "kafka offsets"


def test_a_corrupt_index_is_rebuilt(repo: Path) -> None:
    next(generation(repo).glob("vectors-*.npy")).write_bytes(b"garbage")
    stats = refresh(repo)
    assert stats.full and stats.changed
    assert ids(repo, "websocket", limit=1) == ["ws-heartbeat-interval"]


def test_readers_see_whole_generations_during_rebuilds(repo: Path) -> None:
    errors: list[BaseException] = []
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            try:
                found = ids(repo, "websocket ping", limit=3)
                assert found and found[0] == "ws-heartbeat-interval"
            except BaseException as exc:
                errors.append(exc)
                return

    readers = [threading.Thread(target=read) for _ in range(2)]
    for t in readers:
        t.start()
    for n in range(4):
        write_atom(
            repo,
            f"shared/extra-{n}.md",
            atom_text(
                f"extra-{n}", title=f"Extra {n}", body=f"- Extra fact number {n} about Redis."
            ),
        )
        refresh(repo, full=n % 2 == 0)
    stop.set()
    for t in readers:
        t.join()
    assert not errors, errors[0]


def test_concurrent_index_commands_never_corrupt(repo: Path) -> None:
    for n in range(20):
        write_atom(
            repo,
            f"shared/bulk-{n}.md",
            atom_text(f"bulk-{n}", title=f"Bulk {n}", body=f"- Bulk fact {n} about the CDN cache."),
        )
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "memkit", "index", "--full"],
            cwd=repo,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(3)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    reader = open_index(repo)
    assert len(reader.atoms) == len(ATOMS) + 20
    assert ids(repo, "bulk fact 7 cdn", limit=1) == ["bulk-7"]


def test_batch_equals_one_by_one(repo: Path, tmp_path: Path) -> None:
    queries = ["websocket", "資料庫遷移", "テスト", "texture 2048"]
    batch = tmp_path / "queries.jsonl"
    batch.write_text(
        "\n".join(json.dumps({"id": i, "query": q}) for i, q in enumerate(queries)),
        encoding="utf-8",
    )
    out = memkit("search", "--batch", str(batch), "--limit", "3", cwd=repo)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    for i, query in enumerate(queries):
        single = memkit("search", query, "--json", "--limit", "3", cwd=repo)
        assert rows[i] == {"id": i, "results": json.loads(single.stdout)["results"]}


def imported_after(code: str, modules: tuple[str, ...]) -> list[str]:
    """A fresh process's output after running `code`; its last line lists which of `modules`
    it has imported."""
    probe = f"{code}\nimport sys\nprint([m for m in {modules!r} if m in sys.modules])\n"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    return result.stdout.strip().splitlines()


def test_the_query_path_stays_light(repo: Path) -> None:
    code = (
        "from pathlib import Path\n"
        "from memkit.index import open_index\n"
        f"open_index(Path({str(repo)!r})).search('websocket ping')"
    )
    heavy = ("git", "ruamel", "mistune", "model2vec", "torch", "frontmatter")
    assert imported_after(code, heavy) == ["[]"]


def test_the_search_command_imports_only_its_own_verb(repo: Path) -> None:
    # The CLI loads one command module, not all of them: `memkit search` in a fresh process
    # pays for the query path only.
    code = (
        f"from memkit.main import main\nmain(['search', 'websocket ping', '--repo', {str(repo)!r}])"
    )
    heavy = ("git", "ruamel", "mistune", "frontmatter", "yaml", "memkit.audit")
    assert imported_after(code, heavy)[-1] == "[]"


def test_an_invalid_atom_is_left_out_until_it_is_fixed(repo: Path) -> None:
    draft = repo / "shared" / "draft-note.md"
    draft.write_text(
        "---\nid: draft-note\ntype: pitfal\nconfidence: observed\ncreated: 2026-01-01\n---\n"
        "# Cache eviction draft\n\n- Evict the cache every 5 min.\n",
        encoding="utf-8",
    )
    stats = refresh(repo)
    assert stats.skipped == ("shared/draft-note.md",)
    assert "draft-note" not in ids(repo, "cache eviction")
    # An unchanged invalid file is remembered: nothing to do, no new generation.
    again = refresh(repo)
    assert (again.changed, again.generation) == (False, stats.generation)
    out = memkit("index", cwd=repo)
    assert "left out 1 invalid atom(s) (shared/draft-note.md (MK006))" in out.stdout
    draft.write_text(draft.read_text(encoding="utf-8").replace("pitfal", "pitfall"), "utf-8")
    fixed = refresh(repo)
    assert (fixed.indexed, fixed.skipped) == (1, ())
    assert ids(repo, "cache eviction", limit=1) == ["draft-note"]


def test_search_refreshes_a_stale_index_first(repo: Path) -> None:
    write_atom(
        repo,
        "shared/kafka-offsets.md",
        atom_text("kafka-offsets", title="Kafka offsets", body="- Commit offsets after work."),
    )
    out = memkit("search", "kafka offsets", "--json", cwd=repo)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["results"][0]["id"] == "kafka-offsets"
    (repo / "shared" / "kafka-offsets.md").unlink()
    out = memkit("search", "kafka offsets", "--json", cwd=repo)
    assert "kafka-offsets" not in out.stdout
