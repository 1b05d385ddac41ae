from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from memkit.atom.read import parse_atom_bytes, read_atom
from memkit.atom.write import update_frontmatter
from memkit.files import write_atomic

GOOD = """\
---
# written by alice after the March outage
id: ws-heartbeat-interval
type: pitfall            # kept short on purpose
confidence: 觀
created: 2026-02-08
author: 'alice@example.com'
triggers: [websocket, heartbeat, 心跳]
paths: ["src/net/**"]
enabled: no
related: []
---
# WebSocket connections need a 30 s heartbeat

The load balancer drops idle connections.

## What to do

- Send a ping every 30 s.
- If the socket closes anyway → reconnect with backoff.

```
# not a heading
- not a bullet
```
"""


def test_good_atom_parses_into_a_frozen_record() -> None:
    parsed = parse_atom_bytes("shared/ws-heartbeat-interval.md", GOOD.encode())
    assert parsed.atom is not None
    atom = parsed.atom
    assert atom.id == "ws-heartbeat-interval"
    assert atom.type == "pitfall"
    assert atom.confidence == "observed"  # 觀 is an alias
    assert atom.created == "2026-02-08"
    assert atom.scope == "shared"
    assert atom.title == "WebSocket connections need a 30 s heartbeat"
    assert atom.triggers == ("websocket", "heartbeat", "心跳")
    assert atom.paths == ("src/net/**",)
    assert atom.status == "active"
    assert atom.is_active
    # `enabled: no` is an unknown key (warning) and YAML 1.2 keeps it a string.
    assert atom.extra["enabled"] == "no"
    assert [f.code for f in parsed.findings] == ["MK016"]
    with pytest.raises(AttributeError):
        atom.id = "other"  # type: ignore[misc]  # the write mypy forbids, refused at run time


def test_sections_and_bullets_carry_real_file_lines() -> None:
    atom = parse_atom_bytes("shared/ws-heartbeat-interval.md", GOOD.encode()).atom
    assert atom is not None
    lines = GOOD.split("\n")
    assert [(s.heading, s.line) for s in atom.sections] == [
        ("WebSocket connections need a 30 s heartbeat", 13),
        ("What to do", 17),
    ]
    bullets = atom.sections[1].bullets
    assert [b.text for b in bullets] == [
        "Send a ping every 30 s.",
        "If the socket closes anyway → reconnect with backoff.",
    ]
    for bullet in bullets:
        assert bullet.text.split()[0] in lines[bullet.line - 1]
    assert atom.line_of("confidence") == 5
    assert lines[atom.line_of("paths") - 1].startswith("paths:")


@pytest.mark.parametrize(
    ("path", "scope", "pending"),
    [
        ("shared/a.md", "shared", False),
        ("shared/net/a.md", "shared", False),
        ("shared/_pending/a.md", "shared", True),
        ("roles/art/a.md", "role:art", False),
        ("personal/bob/a.md", "personal:bob", False),
        ("episodic/a.md", "episodic", False),
        ("archive/rejected/a.md", "archive", False),
    ],
)
def test_scope_comes_from_the_path(path: str, scope: str, pending: bool) -> None:
    text = GOOD.replace("id: ws-heartbeat-interval", "id: a")
    atom = parse_atom_bytes(path, text.encode()).atom
    assert atom is not None
    assert (atom.scope, atom.pending) == (scope, pending)


def test_update_keeps_comments_order_quoting_and_body(tmp_path: Path) -> None:
    path = tmp_path / "shared" / "ws-heartbeat-interval.md"
    path.parent.mkdir()
    path.write_text(GOOD, encoding="utf-8")
    update_frontmatter(path, {"status": "superseded", "superseded_by": ["ws-heartbeat-v2"]})
    new = path.read_text(encoding="utf-8")
    old_lines, new_lines = GOOD.split("\n"), new.split("\n")
    # Every original line is still there, in order, byte for byte.
    assert [line for line in new_lines if line in old_lines] == old_lines
    assert "status: superseded" in new_lines
    assert "superseded_by:" in new
    assert "author: 'alice@example.com'" in new_lines
    assert "enabled: no" in new_lines
    assert "# written by alice after the March outage" in new_lines
    atom = read_atom(tmp_path, "shared/ws-heartbeat-interval.md").atom
    assert atom is not None
    assert atom.status == "superseded"
    assert atom.superseded_by == ("ws-heartbeat-v2",)
    update_frontmatter(path, {"superseded_by": None, "status": "active"})
    assert "superseded_by" not in path.read_text(encoding="utf-8")


def test_update_refuses_a_file_without_frontmatter(tmp_path: Path) -> None:
    path = tmp_path / "x.md"
    path.write_text("# no frontmatter\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no frontmatter"):
        update_frontmatter(path, {"status": "archived"})
    assert path.read_text(encoding="utf-8") == "# no frontmatter\n"


def test_write_atomic_leaves_no_temp_files_and_keeps_mode(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("old", encoding="utf-8")
    path.chmod(0o640)
    write_atomic(path, "new")
    assert path.read_text(encoding="utf-8") == "new"
    assert path.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["a.md"]


def test_write_atomic_gives_a_new_file_the_umasks_mode_and_cleans_up_on_error(
    tmp_path: Path,
) -> None:
    import os

    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "sub" / "new.md", "text")
    finally:
        os.umask(old)
    assert (tmp_path / "sub" / "new.md").stat().st_mode & 0o777 == 0o644  # not mkstemp's 0600

    def fail(fh: object) -> None:
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        write_atomic(tmp_path / "sub" / "new.md", fail)
    assert (tmp_path / "sub" / "new.md").read_text(encoding="utf-8") == "text"
    assert [p.name for p in (tmp_path / "sub").iterdir()] == ["new.md"]


@pytest.mark.parametrize(
    "frontmatter",
    [
        GOOD.split("---\n")[1],
        "id: x\ntype: fact\nconfidence: 固\ncreated: '2026-02-08'\ntriggers:\n  - on\n  - 'no'\n",
        'id: x\ntype: fact\nconfidence: fixed\ncreated: 2026-02-08\ntitle: "a: \\"b\\""\n',
        "id: x\ntype: fact\nconfidence: fixed\ncreated: 2026-02-08\nrelated: [a, b]\nx: {k: v}\n",
    ],
)
def test_the_index_fast_path_reads_the_same_atom_as_validation(frontmatter: str) -> None:
    # The index parses with libyaml, validation with ruamel: both must see one atom.
    data = f"---\n{frontmatter}---\n# Title\n\n- a bullet\n".encode()
    slow = parse_atom_bytes("shared/x.md", data).atom
    fast = parse_atom_bytes("shared/x.md", data, fast=True).atom
    assert slow is not None
    assert fast is not None
    assert fast.key_lines == {}  # the one thing indexing does without
    assert dataclasses.replace(fast, key_lines=slow.key_lines) == slow


def test_the_fast_path_reports_what_libyaml_refuses_with_ruamels_error() -> None:
    data = b"---\nid: x\ntype: [fact\n---\n# Title\n\nbody\n"
    parsed = parse_atom_bytes("shared/x.md", data, fast=True)
    assert parsed.atom is None
    assert [f.code for f in parsed.findings] == ["MK003"]
