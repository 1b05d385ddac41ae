"""The fast frontmatter reader gives what libyaml's base loader gives, for every kind of line
it takes on itself, and hands everything else to libyaml (issue 16). Since issue 20 it is the
same reader as validation's (`memkit.atom.plain`), reading every scalar as a string."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from memkit.atom.plain import read_meta, read_strings

SIMPLE = [
    "id: a\ntype: fact\nconfidence: 'tentative'   # 臨\ncreated: 2026-02-08\n"
    "triggers: [websocket, heartbeat, 心跳]\n",
    'id: a\nconfidence: "fixed"\nstatus: active # c\n# comment\n\nsupersedes: [b]\n',
    "id: a\ntriggers: []\nrelated: [a, ]\n",
    "id: a\nx:\n",
    "id: a\nv: -x\n",
    "id: a\nv: x # y\n",
    "id: a\nv: [a, b] # c\n",
    "id: a\nv: yes\nw: no\nn: null\n",
    "id: a\nv: 1.5\nw: ~\n",
    "id: a\nv: a, b\n",
    "id: a\nv: 'a # b'\n",
    "id: a\nv:   spaced   \n",
    "id: a\nv: [a b, c]\n",
    "id: a\nv: x\t# tab comment\n",
    "title: a - b\n",
    # Read by the fast reader since it is validation's too (issue 20); libyaml before.
    'id: a-b\npaths: ["src/**"]\n',
    "id: a\ntriggers:\n  - a\n  - b\n",
    "id: a\nv: C#\n",
    "id: a\nv: 'it''s'\n",
    "title: http://x.y/z\n",
]
TO_LIBYAML = [
    "id: a\nv: [a: b]\n",
    'id: a\nv: "a\\tb"\n',
    "id: a\nv: &x 1\nw: *x\n",
    "id: a\nid: b\n",
    "id: a\nv: - x\n",
    "id: a\nv: [a,, b]\n",
    "id: a\nv: {a: b}\n",
    "id: a\nv: |\n  x\n",
    "id: a\nv: %x\n",
    "title: Use: colons\n",
]


def libyaml(text: str) -> object:
    try:
        return yaml.load(text.rstrip("\n"), Loader=yaml.CBaseLoader)  # noqa: S506
    except yaml.YAMLError:
        return None  # invalid: `memkit validate` reports it


@pytest.mark.parametrize("text", SIMPLE + TO_LIBYAML)
def test_the_same_strings_as_libyaml(text: str, tmp_path: Path) -> None:
    expected = libyaml(text)
    fast = read_strings(text)
    assert fast is None or fast == expected
    assert (fast is not None) == (text in SIMPLE)
    path = tmp_path / "a.md"
    path.write_text(f"---\n{text}---\n# A\n\nbody\n", encoding="utf-8")
    assert read_meta(path) == expected


def test_every_atom_the_tests_write_reads_the_same(tmp_path: Path) -> None:
    from tests.helpers import atom_text
    from tests.lifecycle.team_lifecycle_test import DEPLOY, HEARTBEAT, OLD_SERVER

    for text in (HEARTBEAT, DEPLOY, OLD_SERVER, atom_text("x", extra='paths: ["a/**"]\n')):
        head = text.split("---\n")[1]
        assert read_meta_of(tmp_path, text) == libyaml(head)


def read_meta_of(folder: Path, text: str) -> object:
    path = folder / "atom.md"
    path.write_text(text, encoding="utf-8")
    return read_meta(path)


def test_not_a_regular_file_is_not_read(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "fifo.md"
    os.mkfifo(fifo)
    assert read_meta(fifo) is None  # would block a reader forever
    (tmp_path / "real.md").write_text("---\nid: real\n---\n", encoding="utf-8")
    (tmp_path / "link.md").symlink_to(tmp_path / "real.md")
    assert read_meta(tmp_path / "link.md") is None
    assert read_meta(tmp_path / "real.md") == {"id": "real"}


TABBED = ["\t# a comment", "\t", " \t", "\t\t# c"]


@pytest.mark.parametrize("seed", range(3))
def test_generated_frontmatter_reads_as_libyaml_reads_it(seed: int) -> None:
    """The frontmatter validation's comparison with ruamel generates
    (tests/atom/plain_frontmatter_test.py), with tabs now and then (libyaml takes a tab for a
    space where ruamel refuses it): every scalar a string, exactly as libyaml's base loader
    reads it, or left to libyaml."""
    import random

    from tests.atom.plain_frontmatter_test import frontmatter

    rng = random.Random(seed)  # noqa: S311  (test data, not secrets)
    read_fast = 0
    for _ in range(400):
        lines = frontmatter(rng).split("\n")
        for n, line in enumerate(lines):
            if line and rng.random() < 0.1:
                lines[n] = line.replace(": ", rng.choice([":\t", ": \t"]), 1)
            elif line and rng.random() < 0.1:
                lines[n] = line + rng.choice(TABBED)
        text = "\n".join(lines)
        fast = read_strings(text)
        read_fast += fast is not None
        assert fast is None or fast == libyaml(text), text
    assert read_fast > 40
