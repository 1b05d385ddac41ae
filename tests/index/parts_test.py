"""A refresh writes a part with what changed (issue 33): the earlier parts are the same files,
many refreshes give what one full build gives, damage in any part is found and healed, and a
reader sees whole generations."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memkit.index import open_index, parts, refresh, store
from memkit.index.lite import open_light
from memkit.index.opening import DAMAGED, open_checked
from tests.helpers import (
    atom_text,
    engine_running,
    generation,
    git,
    headers_after,
    heartbeat_repo,
    make_memory_repo,
    memkit,
    run_hook,
    wait_for,
    write_atom,
)
from tests.helpers import context as hook_context

TOPICS = [
    "Redis evicts keys with the allkeys-lru policy once maxmemory is reached",
    "The load balancer drops idle WebSocket connections after 60 seconds",
    "Kafka consumers commit offsets only after the batch is processed",
    "Texture atlases are exported at 2048 pixels for mobile GPUs",
    "部署 API 之前必須先執行資料庫遷移",
    "Nginx proxy buffers must be raised for large upstream headers",
]


def fact(n: int, round_: int = 0) -> str:
    body = f"- {TOPICS[n % len(TOPICS)]} (note {n}, round {round_})."
    return atom_text(f"fact-{n}", title=f"Fact {n} round {round_}", body=body)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = make_memory_repo(tmp_path / "team", hooks=False)
    for n in range(24):
        write_atom(repo, f"shared/fact-{n}.md", fact(n))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "atoms")
    refresh(repo)
    return repo


def table(repo: Path) -> tuple[dict[str, Any], dict[str, Any], dict[str, list[str]]]:
    """Each indexed atom's entry and vector, by path, and what was left out."""
    reader = open_index(repo)
    assert not reader.damage, reader.damage
    rows = {a["path"]: a for a in reader.atoms}
    vectors = {a["path"]: reader.vectors[i] for i, a in enumerate(reader.atoms)}
    assert len(reader.vectors) == len(rows)
    return rows, vectors, reader.refusals


def change_some(repo: Path, round_: int) -> None:
    """Edits, a deletion, an addition, an atom that names another and one that names none."""
    for n in (round_ % 24, (round_ * 5 + 3) % 24):
        write_atom(repo, f"shared/fact-{n}.md", fact(n, round_))
    gone = repo / "shared" / f"fact-{(round_ * 7 + 1) % 24}.md"
    gone.unlink(missing_ok=True)
    write_atom(
        repo,
        f"shared/new-{round_}.md",
        fact(100 + round_, round_).replace(f"fact-{100 + round_}", f"new-{round_}"),
    )
    related = "fact-2" if round_ % 2 else "no-such-atom"  # refused (MK010) every other round
    write_atom(
        repo,
        "shared/linked.md",
        atom_text("linked", body=f"- Linked in round {round_}.", extra=f"related: [{related}]\n"),
    )


def same_as_a_full_build(repo: Path) -> None:
    rows, vectors, refused = table(repo)
    refresh(repo, full=True)
    full_rows, full_vectors, full_refused = table(repo)
    assert rows == full_rows
    assert refused == full_refused
    for path, vector in full_vectors.items():
        assert np.allclose(vectors[path], vector), path


def test_a_refresh_links_the_earlier_parts_and_writes_only_what_changed(repo: Path) -> None:
    first = generation(repo)
    write_atom(repo, "shared/fact-3.md", fact(3, 1))
    stats = refresh(repo)
    assert not stats.full and stats.indexed == 1
    gen = generation(repo)
    header = store.read_meta(gen)
    assert [p[1:] for p in header["parts"]] == [[24, 0], [1, 1]]  # (rows, removed)
    for rel in parts.files_of(1):  # the same files, not copies: nothing rewritten
        assert (gen / rel).stat().st_ino == (first / rel).stat().st_ino, rel
    assert len(np.load(gen / parts.vectors_file(2))) == 1
    rows, _, _ = table(repo)
    assert rows["shared/fact-3.md"]["title"] == "Fact 3 round 1"
    assert len(rows) == 24


def test_many_refreshes_give_what_a_full_build_gives(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parts, "SHARE", 10.0)  # never compacted: every part read in turn
    for round_ in range(1, 7):
        change_some(repo, round_)
        assert not refresh(repo).full
    header = store.read_meta(generation(repo))
    assert len(header["parts"]) > 1  # the refreshes did add parts
    assert "shared/linked.md" in table(repo)[2]  # refused in the last round (no-such-atom)
    same_as_a_full_build(repo)


@pytest.mark.parametrize("how", ["count", "share"])
def test_parts_are_merged_and_still_give_what_a_full_build_gives(
    repo: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    if how == "count":
        monkeypatch.setattr(parts, "MAX_PARTS", 3)
        monkeypatch.setattr(parts, "SHARE", 10.0)
    else:  # 24 atoms, ~5 changed a round: the second or third round passes the share
        monkeypatch.setattr(parts, "SHARE", 0.5)
    seen = [len(header["parts"]) for header in headers_after(repo, range(1, 7), change_some)]
    if how == "count":
        assert max(seen) == 3 and seen[-1] <= 3, seen  # merged after the first part
    else:
        assert 1 in seen[1:], seen  # compacted into one
    same_as_a_full_build(repo)


def flip(path: Path) -> None:
    data = path.read_bytes()
    mid = len(data) // 2
    path.write_bytes(data[:mid] + bytes(b ^ 0xFF for b in data[mid : mid + 4]) + data[mid + 4 :])


@pytest.mark.parametrize("kind", ["atoms", "keys", "vectors"])
def test_a_damaged_part_is_found_and_healed(repo: Path, kind: str) -> None:
    for round_ in (1, 2):
        change_some(repo, round_)
        refresh(repo)
    gen = generation(repo)
    last = parts.parts_of(store.read_meta(gen))[-1].seq
    rel = {"atoms": parts.atoms_file, "keys": parts.keys_file, "vectors": parts.vectors_file}[kind](
        last
    )
    flip(gen / rel)  # the same size: only the checksum tells
    reader, problem, detail = open_checked(repo, deep=False)
    if kind == "atoms":
        assert reader is None and problem == DAMAGED and rel in detail
    elif kind == "vectors":  # the table opens; the vectors are found damaged when loaded
        assert reader is not None
        assert len(reader.vectors) == 0 and "vectors damaged" in reader.damage
    else:  # read by the next refresh only, which must not build on it
        assert rel in store.verify(gen, deep=True)
    stats = refresh(repo)
    assert stats.full and stats.changed
    assert not store.verify(generation(repo), deep=True)
    same_as_a_full_build(repo)


def test_a_generation_of_the_older_format_is_rebuilt(repo: Path) -> None:
    gen = generation(repo)
    meta = store.json_load(gen / "meta.json")
    store.write_json_atomic(gen / "meta.json", {**meta, "format": 3})
    info = store.json_load(gen / "build.json")
    del info["format"]  # as memkit before issue 33 wrote it
    store.write_json_atomic(gen / "build.json", info)
    store.write_checksums(gen)  # sealed by this clone: only its format is old
    with pytest.raises(store.OutdatedIndex):
        store.read_meta(gen)
    stats = refresh(repo)
    assert stats.full and store.read_meta(generation(repo))["format"] == store.FORMAT


def test_readers_never_see_half_a_refresh(repo: Path) -> None:
    """Three atoms change together in each refresh (another process, as a git hook runs
    it): every reader sees all three of one round, and one vector a row."""
    together = ("shared/fact-4.md", "shared/fact-9.md", "shared/fact-15.md")
    errors: list[BaseException] = []
    seen: set[str] = set()
    stop = threading.Event()

    def read(opener: Any) -> None:
        while not stop.is_set():
            try:
                reader = opener(repo)
                rows = {a["path"]: a for a in reader.atoms}
                rounds = {rows[p]["title"].rsplit(" ", 1)[1] for p in together}
                assert len(rounds) == 1, rounds
                seen.update(rounds)
                assert len(reader.vectors) == len(reader.atoms) == 24
            except BaseException as exc:
                errors.append(exc)
                return

    threads = [threading.Thread(target=read, args=(o,)) for o in (open_index, open_light)]
    for t in threads:
        t.start()
    try:
        for round_ in range(1, 6):
            for path in together:
                n = int(path.rsplit("-", 1)[1].removesuffix(".md"))
                write_atom(repo, path, fact(n, round_))
            result = memkit("index", "--quiet", cwd=repo, env={"MEMKIT_NO_ENGINE": "1"})
            assert result.returncode == 0, result.stderr
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert not errors, errors[0]
    assert "5" in seen and len(seen) > 1, seen
    assert generation(repo).name != "gen-000001"


def test_a_kept_atom_refused_for_another_file_and_back(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fact-5 sits in the first part; a second file taking its id refuses both (MK009), so
    the refresh's part removes it from the first; deleting that file brings it back."""
    monkeypatch.setattr(parts, "SHARE", 10.0)
    write_atom(repo, "roles/art/fact-5.md", fact(5, 1))
    refresh(repo)
    rows, _, refused = table(repo)
    assert "shared/fact-5.md" not in rows and "MK009" in refused["shared/fact-5.md"]
    assert [p[1:] for p in store.read_meta(generation(repo))["parts"]] == [[24, 0], [0, 1]]
    same_as_a_full_build(repo)
    (repo / "roles/art/fact-5.md").unlink()
    for n in (6, 7):  # and only deletions in the same refresh: a part of no rows
        (repo / f"shared/fact-{n}.md").unlink()
    refresh(repo)
    rows, _, refused = table(repo)
    assert rows["shared/fact-5.md"]["title"] == "Fact 5 round 0" and not refused
    assert "shared/fact-6.md" not in rows and len(rows) == 22
    same_as_a_full_build(repo)


def zebra(n: int, round_: int) -> str:
    return atom_text(
        f"zebra-{n}",
        title=f"Zebra crossing {n} round {round_}",
        body=f"- Zebra crossing rule {n}: stop for walkers (round {round_}).",
        extra="triggers: [zebra]\n",
    )


def test_the_warm_engine_serves_whole_refreshes(tmp_path: Path) -> None:
    """Three atoms change together in each refresh, written by `memkit index` beside a running
    engine: every answer shows the three of one round, with their vectors."""
    repo = heartbeat_repo(tmp_path / "team")
    for n in range(3):
        write_atom(repo, f"shared/zebra-{n}.md", zebra(n, 0))
    for n in range(100):  # enough rows that four refreshes stay parts (no compaction)
        write_atom(repo, f"shared/fact-{n}.md", fact(n))
    assert memkit("index", cwd=repo).returncode == 0
    rounds_seen: list[set[str]] = []

    def ask(session: str) -> str:
        payload = {"session_id": session, "cwd": str(repo), "prompt": "zebra crossing rules"}
        context = hook_context(run_hook("user-prompt-submit", payload, repo, engine=True))
        found: dict[str, str] = dict(
            re.findall(r"^## (zebra-\d) · .* round (\d+)$", context, re.MULTILINE)
        )
        assert sorted(found) == ["zebra-0", "zebra-1", "zebra-2"], context
        assert len(set(found.values())) == 1, context  # never half a refresh
        assert "vector #" in context  # the vectors answer, one row per atom
        rounds_seen.append(set(found.values()))
        return next(iter(found.values()))

    # Only `memkit index` builds here (no refresh of the engine's own, which could catch
    # the three files half written: a whole generation of a half-written tree).
    with engine_running(repo, "--idle", "60", "--check-every", "0"):
        assert ask("s0") == "0"
        for round_ in range(1, 5):
            for n in range(3):
                write_atom(repo, f"shared/zebra-{n}.md", zebra(n, round_))
            ask(f"s{round_}a")  # the last round still: not indexed yet
            result = memkit("index", "--quiet", cwd=repo)
            assert result.returncode == 0, result.stderr
            ask(f"s{round_}b")
        wait_for(lambda: ask(f"s-last-{len(rounds_seen)}") == "4", 30)
    assert len(rounds_seen) >= 9
    assert len(store.read_meta(generation(repo))["parts"]) > 2  # it did read parts


def test_every_refresh_seals_what_it_wrote(repo: Path) -> None:
    """tantivy rewrites its meta.json on commit, often at the same size as the one linked
    from the previous generation: the seal must hold the new file's checksum, or the next
    full check (the engine's, `memkit index`, doctor) finds a fresh generation damaged."""
    for round_ in range(1, 6):
        write_atom(repo, f"shared/fact-{round_}.md", fact(round_, round_))
        assert not refresh(repo).full
        assert store.verify(generation(repo), deep=True) == {}, round_
