"""A refresh never makes tantivy rewrite the build's segments (issue 33): it re-adds the
documents of the newest refresh segments with its own, tantivy drops the emptied segments at
the commit, and the index holds what a full build of the same files holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import tantivy

from memkit.index import open_index, refresh, segments, store
from tests.helpers import atom_text, generation, headers_after, write_atom

TOPICS = [
    "Kafka consumers commit offsets only after the batch is processed",
    "部署 API 之前必須先執行資料庫遷移,否則服務啟動失敗",
    "Redis evicts keys with the allkeys-lru policy once maxmemory is reached",
    "The load balancer drops idle WebSocket connections after 60 seconds",
]
FILLER = " ".join(f"word{w}" for w in range(150))  # real-size atoms
QUERIES = ["kafka offsets", "資料庫遷移", "allkeys lru", "websocket", "tagged", "trig7"]


def fact(n: int, round_: int) -> str:
    extra = f"triggers: [trig{n % 9}]\ntags: [tagged]\n" if n % 3 == 0 else ""
    body = f"- {TOPICS[n % len(TOPICS)]} (fact {n}, round {round_}). {FILLER}"
    return atom_text(f"fact-{n}", title=f"Fact {n} round {round_}", body=body, extra=extra)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    root.mkdir()
    (root / "memkit.yaml").write_text("version: 1\n", encoding="utf-8")
    for n in range(400):
        write_atom(root, f"shared/fact-{n}.md", fact(n, 0))
    refresh(root, full=True)
    return root


def segment_ids(gen: Path) -> list[str]:
    meta = json.loads((gen / "tantivy" / "meta.json").read_text(encoding="utf-8"))
    return [s["segment_id"].replace("-", "") for s in meta["segments"]]


def build_files(gen: Path) -> dict[str, int]:
    """The inode of each file of the build's segments (deletions are files of their own)."""
    ids = segment_ids(gen)
    return {
        p.name: p.stat().st_ino
        for p in (gen / "tantivy").iterdir()
        if p.name.split(".")[0] in ids and p.suffix != ".del"
    }


def change(root: Path, round_: int) -> None:
    """Ten atoms a round, mostly others than before; one edited every round, one removed and
    one added now and then."""
    for k in range(9):
        n = (round_ * 9 + k) % 390
        write_atom(root, f"shared/fact-{n}.md", fact(n, round_))
    write_atom(root, "shared/fact-3.md", fact(3, round_))
    if round_ % 4 == 0:
        (root / "shared" / f"fact-{(round_ * 9) % 390}.md").unlink()
        write_atom(root, f"shared/fact-{390 + round_ // 4}.md", fact(390 + round_ // 4, round_))


def documents(root: Path) -> dict[str, dict[str, Any]]:
    """Every live tantivy document of the live generation, by path."""
    index = tantivy.Index.open(str(generation(root) / "tantivy"))
    searcher = index.searcher()
    hits = searcher.search(tantivy.Query.all_query(), 10_000).hits
    docs = [searcher.doc(address).to_dict() for _, address in hits]
    by_path = {doc["path"][0]: doc for doc in docs}
    assert len(by_path) == len(docs), "a path indexed twice"
    return by_path


def found(root: Path) -> list[set[str]]:
    reader = open_index(root)
    return [{reader.atoms[row]["path"] for row, _ in reader.bm25(q, 1_000)} for q in QUERIES]


def same_as_a_full_build(root: Path) -> None:
    docs, hits = documents(root), found(root)
    refresh(root, full=True)
    assert docs == documents(root)
    assert hits == found(root)  # the CJK field, derived again, finds the same atoms


def test_refreshes_never_rewrite_the_build(root: Path) -> None:
    build = build_files(generation(root))
    assert build
    counts = []
    for round_ in range(1, 31):
        change(root, round_)
        assert not refresh(root).full
        gen = generation(root)
        counts.append(len(segment_ids(gen)))
        for name, inode in build.items():  # the build's segments, linked, never merged
            assert (gen / "tantivy" / name).stat().st_ino == inode, (round_, name)
    assert max(counts) < segments.MERGE_AT, counts
    refreshed = store.read_meta(generation(root))["refreshed"]
    assert len(refreshed) == counts[-1] - 1  # each segment but the build's is a refresh's
    same_as_a_full_build(root)


def test_past_the_roll_up_limit_tantivy_merges_and_the_index_stays_whole(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(segments, "ROLL_UP_MAX", 25)
    seen = [len(header["refreshed"]) for header in headers_after(root, range(1, 16), change)]
    assert max(seen) >= 3 and 0 in seen[3:], seen  # tantivy merged, and that was noticed
    same_as_a_full_build(root)


def group(name: str, size: int) -> list[str]:
    return [f"{name}{i}" for i in range(size)]


def test_the_roll_up_keeps_sizes_doubling() -> None:
    base = [5_000, 5_000]
    one = segments.plan([group("a", 10)], set(), 10, [*base, 10])
    assert one.keep == [] and one.paths == group("a", 10) and one.base == 2
    two = segments.plan([group("a", 40), group("b", 10)], set(), 10, [*base, 40, 10])
    assert two.keep == [group("a", 40)] and two.paths == group("b", 10)
    three = segments.plan([group("a", 40), group("b", 20)], set(), 10, [*base, 40, 20])
    assert three.keep == [group("a", 40), group("b", 20)] and three.paths == []


def test_the_roll_up_keeps_the_lowest_level_under_eight() -> None:
    refreshed = [group("a", 80), group("b", 40), group("c", 20), group("d", 10), group("e", 5)]
    live = [5_000, 5_000, *(len(g) for g in refreshed)]  # seven: an eighth would merge
    roll = segments.plan(refreshed, set(), 1, live)
    assert len(roll.keep) == 4 and roll.paths == group("e", 5)  # 2 + 4 + 1 segments
    big = [60_000, 50_000]  # a level of their own: not counted
    roll = segments.plan(refreshed, set(), 1, [*big, *(len(g) for g in refreshed)])
    assert roll.paths == [] and len(roll.keep) == 5


def test_past_the_limit_nothing_is_rolled_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(segments, "ROLL_UP_MAX", 100)
    refreshed = [group(k, 30) for k in "abcdef"]
    roll = segments.plan(refreshed, set(), 30, [5_000, *(30 for _ in refreshed)])
    assert roll.paths == group("e", 30) + group("f", 30) and len(roll.keep) == 4
    roll = segments.plan([group("a", 90), group("b", 90)], set(), 90, [5_000] * 6 + [90, 90])
    assert roll.paths == [] and roll.keep == [group("a", 90), group("b", 90)]


def test_changed_and_removed_paths_leave_their_segment() -> None:
    refreshed = [group("a", 3), ["b0"]]
    roll = segments.plan(refreshed, {"a1", "b0"}, 0, [5_000, 3, 1])
    assert roll.keep == [["a0", "a2"]] and roll.paths == []  # deleting only: nothing written
    assert segments.after(roll, [], set(), [5_000, 3]) == [["a0", "a2"]]
    # a segment more or fewer than expected: tantivy merged, every segment is the build's
    assert segments.after(roll, [], set(), [5_003]) == []
    new = segments.plan(refreshed, set(), 2, [5_000, 3, 1])
    assert new.keep == [] and new.paths == [*group("a", 3), "b0"]
    assert segments.after(new, ["x", "y"], {"y"}, [5_000, 5]) == [[*group("a", 3), "b0", "x"]]


def simulate(refreshes: int, build: list[int], adding: int = 10) -> tuple[list[int], list[int]]:
    """`refreshes` refreshes of `adding` other atoms each, planned by `segments` against
    tantivy's rule (eight segments in the lowest level are merged into one): the refreshes at
    which tantivy merged, and how many documents each refresh re-added."""
    base, refreshed = list(build), list[list[str]]()
    merges, rolled = [], []
    for n in range(refreshes):
        live = base + [len(group) for group in refreshed]
        roll = segments.plan(refreshed, set(), adding, live)
        rolled.append(len(roll.paths))
        now = base + [len(group) for group in roll.keep if group] + [len(roll.paths) + adding]
        if sum(1 for docs in now if docs < segments.LOW_LEVEL) >= segments.MERGE_AT:
            merges.append(n)
            now = [sum(now)]
        refreshed = segments.after(roll, [f"r{n}-{k}" for k in range(adding)], set(), now)
        base = now[: len(now) - len(refreshed)]
    return merges, rolled


@pytest.mark.parametrize("build", [[5_000, 5_000], [400]])
def test_over_many_refreshes_tantivy_merges_rarely_and_a_roll_up_stays_small(
    build: list[int],
) -> None:
    merges, rolled = simulate(1_000, build)
    assert max(rolled) <= segments.ROLL_UP_MAX
    assert sum(rolled) / len(rolled) < 150  # ~15 ms a refresh, on average
    assert 1 <= len(merges) <= 3, merges  # what it was every seventh refresh
    assert min(b - a for a, b in zip([-1, *merges], merges, strict=False)) >= 300, merges
