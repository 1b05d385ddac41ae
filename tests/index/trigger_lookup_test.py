"""Trigger matches come from a look-up by word and by first character (issue 18): the same
rows, with the same trigger each, as the scan over every atom that it replaced."""

from __future__ import annotations

import random
import re
from pathlib import Path

from memkit.index import IndexReader, open_index
from memkit.index.lite import LightReader, open_light
from memkit.safety.text import has_cjk
from tests.helpers import atom_text, commit_and_index, make_memory_repo, write_atom

TRIGGERS = ["websocket", "heartbeat", "心跳", "資料庫遷移", "c++", "node.js", "rate limit", "k8s"]
TRIGGERS += ["遷移", "cron", "deploy", "on-call", "UTC", "Kafka", "  ", "retry budget"]


def scan(reader: IndexReader, query: str) -> list[tuple[int, str]]:
    """trigger_matches as it was: every atom's triggers, in row order (Chinese folded to one
    script on both sides, issue 43; the trigger named as its atom spells it)."""
    lowered = reader.fold(query.lower())
    words = set(re.findall(r"[\w][\w.+#-]*", lowered))
    found = []
    for row, atom in enumerate(reader.atoms):
        for trig in (t.lower() for t in atom["triggers"] if t.strip()):
            folded = reader.fold(trig)
            if (folded in lowered) if has_cjk(trig) or " " in trig else (folded in words):
                found.append((row, trig))
                break
    return found


def test_trigger_look_up_finds_what_a_scan_finds(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team")
    rng = random.Random(18)  # noqa: S311  (test data, not secrets)
    for n in range(80):
        picked = rng.sample(TRIGGERS, rng.randint(0, 3))
        listed = ", ".join(f"'{t}'" for t in picked)
        write_atom(
            repo,
            f"shared/t-{n}.md",
            atom_text(f"t-{n}", body=f"- Note {n}.", extra=f"triggers: [{listed}]\n"),
        )
    commit_and_index(repo)
    full = open_index(repo)
    open_light(repo)  # writes the column cache
    light = open_light(repo)
    assert isinstance(light, LightReader)
    queries = [
        "the websocket heartbeat again",
        "心跳間隔多久",
        "資料庫遷移要先做",
        "资料库迁移要先做",  # the other script finds the same (issue 43)
        "build with C++ and Node.js",
        "we hit the rate limit in k8s",
        "Kafka on-call at 3 UTC",
        "nothing here",
        "retry budget / cron deploy",
    ]
    matched = 0
    for query in queries:
        expected = scan(full, query)
        assert full.trigger_matches(query) == expected, query
        assert light.trigger_matches(query) == expected, query
        matched += len(expected)
    assert matched > 40
