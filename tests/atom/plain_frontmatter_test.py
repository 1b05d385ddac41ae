"""Frontmatter read without a YAML library reads as ruamel reads it, or not at all (issue 18):
the same atoms, the same findings on the same lines, whole-repository `memkit validate`
output identical."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from memkit.atom import plain
from memkit.atom.read import ParsedAtom, parse_atom_bytes
from memkit.checks import validate as validate_module
from memkit.checks.validate import validate
from tests.helpers import make_memory_repo

GOOD = [
    "fact",
    "decision",
    "observed",
    "fixed",
    "固",
    "2026-02-08",
    "2026-02-30",
    "x",
    "a b",
    "http://x.y/z",
    "C#",
    "a #c",
    "'q'",
    "'it''s'",
    '"dq"',
    "3 things",
    "v1.2",
    "[a, b]",
    "[]",
    "[a,b]",
    "[a, 'b c']",
    '[a, "b"]',
    "中文",
    "心跳",
    "src/net/**",
    "[src/**, docs/*.md]",
    "Use UTC, always",
    "x-y_z",
    "a\u00a0b",
    "é",
    "-x",
    "'a # b'",
    "'q'  # c",
    "[a, b, ]",
]
TRICKY = [
    "2026-13-01",
    "2026-2-8",
    "2026-02-08T10:00:00",
    "a: b",
    "a:b",
    "a # comment",
    '"a\\"b"',
    "'a",
    "yes",
    "no",
    "on",
    "true",
    "False",
    "null",
    "~",
    "",
    "1",
    "1.0",
    "0x1f",
    "0o17",
    "1e3",
    "+5",
    "-5",
    ".5",
    ".inf",
    "1:30",
    "1_000",
    "[on, 'no']",
    "[2026-01-01]",
    "[a, [b]]",
    "[a, {b: c}]",
    "[a, ]",
    "[a: b]",
    "{k: v}",
    "*ref",
    "!tag x",
    "|",
    "> x",
    "%x",
    "@x",
    "`x",
    "?x",
    ",x",
    "a\u2028b",
    "a\x85b",
    "--x",
    "-",
    "- x",
    "'a'#b",
    "'a' b",
    "[ , ]",
    "[a, , ]",
]
KEYS = ["triggers", "tags", "related", "title", "paths", "status", "scope", "author"]
KEYS += ["updated", "expires", "extra_key", "true", "on", "y", "Enabled", "_x", "x-y"]


def _value(rng: random.Random) -> str:
    return rng.choice(GOOD) if rng.random() < 0.85 else rng.choice(TRICKY)


def frontmatter(rng: random.Random) -> str:
    lines = []
    keys = ["id", "type", "confidence", "created", *rng.sample(KEYS, rng.randint(0, 5))]
    rng.shuffle(keys)
    for key in keys:
        shape = rng.random()
        if shape < 0.1:
            lines.append(f"{key}:")
            for _ in range(rng.randint(0, 3)):
                lines.append(rng.choice(["  - ", "  - ", "- ", "    - ", "  -  "]) + _value(rng))
        elif shape < 0.15:
            lines += ["# a comment", f"{key}: {_value(rng)}"]
        elif shape < 0.2:
            lines.append(f"{key}:  {_value(rng)}   # trailing")
        elif shape < 0.23:
            lines += [f"{key}: {_value(rng)}", "  continued"]
        else:
            value = "x" if key == "id" and rng.random() < 0.7 else _value(rng)
            lines.append(f"{key}: {value}")
    if rng.random() < 0.05:
        lines.append(rng.choice(["", "   ", "\t", "key", "- x", "...", "id: dup"]))
    return "\n".join(lines) + "\n"


@contextmanager
def ruamel_only() -> Iterator[None]:
    """Every frontmatter through ruamel, as before issue 18."""
    real = plain.read
    plain.read = lambda yaml_text: None
    try:
        yield
    finally:
        plain.read = real


def without_lines(parsed: ParsedAtom) -> ParsedAtom:
    atom = parsed.atom and dataclasses.replace(parsed.atom, key_lines={})
    findings = tuple(dataclasses.replace(f, line=1, col=1) for f in parsed.findings)
    return ParsedAtom(parsed.path, atom, findings)


@pytest.mark.parametrize("seed", range(3))
def test_generated_frontmatter_reads_as_ruamel_reads_it(seed: int) -> None:
    rng = random.Random(seed)  # noqa: S311  (test data, not secrets)
    read_plainly = 0
    for _ in range(400):
        text = frontmatter(rng)
        data = f"---\n{text}---\n# Title\n\n- a bullet\n".encode()
        read_plain = parse_atom_bytes("shared/x.md", data)
        fast = parse_atom_bytes("shared/x.md", data, fast=True)
        with ruamel_only():
            slow = parse_atom_bytes("shared/x.md", data)
        read_plainly += plain.read(text) is not None
        assert read_plain == slow, text  # atom, key lines, findings with their lines
        # Indexing reads the same atom as validation (it does without key lines).
        assert without_lines(fast) == without_lines(slow), text
    assert read_plainly > 40


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("id: x\ncreated: 2026-02-08\n", {"id": "x", "created": "date"}),
        ("triggers: [a, 'b c', \"d\"]  # note\n", {"triggers": ["a", "b c", "d"]}),
        ("tags:\n  - one\n  - 'it''s'\n", {"tags": ["one", "it's"]}),
        ("title: C# and F#\n", {"title": "C# and F#"}),
    ],
)
def test_what_the_plain_subset_reads(text: str, expected: dict[str, object]) -> None:
    read = plain.read(text)
    assert read is not None
    values = {k: "date" if type(v).__name__ == "date" else v for k, v in read[0].items()}
    assert values == expected


@pytest.mark.parametrize(
    "text",
    [
        "enabled: yes\n",
        "id: 0x1f\n",
        "id: x\nid: y\n",
        "a: &x 1\nb: *x\n",
        "title: |\n  block\n",
        "triggers: [a, [b]]\n",
        "created: 2026-13-01\n",
        "title: a: b\n",
        "tags:\n",
        "true: x\n",
        "title: x\n  more\n",
        "title:\tx\n",
        "",
    ],
)
def test_what_only_ruamel_reads(text: str) -> None:
    assert plain.read(text) is None


def test_whole_repository_validate_output_is_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memkit validate` over varied atoms: the same findings, lines and columns included,
    as when every atom went through ruamel and mistune."""
    repo = make_memory_repo(tmp_path / "team", hooks=False)
    rng = random.Random(18)  # noqa: S311  (test data, not secrets)
    bodies = [
        "# Title\n\n- a bullet\n",
        "# Title\n\nText.\n\n## More\n\n1. one\n2. two\n",
        "> quoted\n\n# Title\n",
        "",
        "# T\n\n```\n# not a heading\n```\n",
    ]
    for n in range(300):
        text = frontmatter(rng)
        if n % 3 == 0:  # references between atoms: MK009, MK010, MK011
            text += rng.choice(
                [f"related: [a-{n - 1}]\n", f"supersedes: [a-{n - 3}]\n", "related: [nowhere]\n"]
            )
        text = text.replace("id: x\n", f"id: a-{n}\n", 1)
        folder = ("shared", "shared/ops", "episodic", "roles/dev")[n % 4]
        path = repo / folder / f"a-{n % 290}.md"  # a few ids twice
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\n{text}---\n{rng.choice(bodies)}", encoding="utf-8")
    monkeypatch.setenv("MEMKIT_PROCESSES", "1")
    with ruamel_only():
        before = validate(repo)
    after = validate(repo)
    assert after == before
    assert len({f.code for f in after}) >= 8  # varied findings, not an empty report
    # A whole repository of many atoms is checked half in a second process: the same.
    monkeypatch.delenv("MEMKIT_PROCESSES")
    monkeypatch.setattr(validate_module, "PARALLEL_ATOMS", 50)
    assert validate(repo) == before
