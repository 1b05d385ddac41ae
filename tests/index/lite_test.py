"""The hook's light open of the index: same answers as a full open, from a column cache."""

from __future__ import annotations

from pathlib import Path

from memkit.index import open_index
from memkit.index.lite import LightReader, cache_path, open_light
from memkit.recall.pipeline import recall
from tests.helpers import atom_text, commit_and_index, make_memory_repo, memkit, write_atom


def test_light_reader_answers_like_the_full_one(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team")
    write_atom(
        repo,
        "shared/ws-heartbeat.md",
        atom_text(
            "ws-heartbeat",
            title="WebSocket heartbeat",
            body="- Send a WebSocket ping every 30 s.",
            extra="triggers: [websocket, 心跳]\nrelated: [ws-backoff]\n",
        ),
    )
    write_atom(
        repo,
        "shared/ws-backoff.md",
        atom_text(
            "ws-backoff",
            title="Reconnect with backoff",
            body="- Reconnect with exponential backoff.",
            extra='paths: ["src/net/**"]\n',
        ),
    )
    commit_and_index(repo)

    full = open_index(repo)
    first = open_light(repo)  # no cache yet: a full open, which writes the cache
    assert not isinstance(first, LightReader)
    light = open_light(repo)
    assert isinstance(light, LightReader)
    # Every attribute a full reader has, the light one has too (the index may grow new ones).
    assert set(vars(full)) <= set(vars(light)) | {"_rows"}
    assert [dict(a) for a in light.atoms] == [
        {k: v for k, v in a.items() if k not in ("blob", "sections", "section_row", "created")}
        for a in full.atoms
    ]
    for query in ("websocket ping", "心跳", "backoff reconnect", "nothing relevant here"):
        given: set[str] = set()
        assert recall(light, query, given=given, budget=3_000) == recall(
            full, query, given=given, budget=3_000
        )

    cached = cache_path(repo, light.build)
    write_atom(
        repo,
        "shared/kafka.md",
        atom_text("kafka", title="Kafka offsets", body="- Commit offsets after processing."),
    )
    assert memkit("index", cwd=repo).returncode == 0
    open_light(repo)
    newer = open_light(repo)
    assert isinstance(newer, LightReader) and newer.generation != light.generation
    assert any(a["id"] == "kafka" for a in newer.atoms)
    assert cache_path(repo, newer.build).exists()
    assert cached.exists() == (repo / ".memkit/index" / light.generation).is_dir()


def test_an_unreadable_cache_means_a_full_open(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team")
    write_atom(repo, "shared/a.md", atom_text("a", title="A", body="- Alpha rule applies."))
    commit_and_index(repo)
    reader = open_light(repo)
    cache_path(repo, reader.build).write_bytes(b"\x00garbage")
    again = open_light(repo)
    assert not isinstance(again, LightReader) and again.atoms[0]["id"] == "a"
    assert isinstance(open_light(repo), LightReader)  # rewritten
