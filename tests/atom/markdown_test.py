"""The plain-subset reader of atom bodies gives exactly what mistune gives (issue 18)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from memkit.atom import markdown
from memkit.atom.markdown import parse_sections

# Lines of the kinds atoms hold, and lines of every kind the plain reader must hand on to
# mistune (quotes, HTML, indentation, setext underlines, fences it would misread, …).
PLAIN = [
    "# Title",
    "## Context",
    "### Sub *em* x",
    "# a #",
    "# a ## b",
    "## x_y_z `c`",
    "plain words here",
    "more text, with (parens) and 30 s",
    "p < 0.05 and x > 3",
    "tenant_id is `k`",
    "**User:** hello there",
    "*not a list*",
    "-5 degrees today",
    "_under_ start",
    "~tilde",
    "``code`` start",
    "- item one",
    "- item **bold**",
    "* star item",
    "+ plus item",
    "1. first",
    "2. second",
    "1) paren",
    "3) third p",
    "10. ten",
    "-  two spaces",
    "1.  two",
    "```",
    "~~~",
    "````",
    "```text",
    "~~~~",
    "",
    "",
    "",
    "continued line",
    "[link](http://x) text in para",
    "text [link](http://x)",
    "- [link](http://x) item",
    "- item with <b>html</b>",
    "a\\",
    "- a\\",
    "&amp; entity",
    "- &amp; x",
    "中文段落，带标点。",
    "- 中文条目",
    "# 标题",
    "2026. was a year",
    "1.5 percent",
    "- item  ",
    "text  ",
    "- `code` item",
    "- a * b * c",
    "# *",
    "- *",
    "* a *",
    "+ +x",
    "~~",
    "  continued",
    "   more text",
    "    four deep",
    "  `code` x",
    "  [l](u) x",
    "  -x",
]
OTHER = [
    "#",
    "#tag here",
    "####### seven",
    "- ",
    "-",
    "- # head in item",
    "- > quote",
    "- - nested",
    "   indented three",
    "    code indented",
    "\tTab",
    "> quote",
    "<div>",
    "| a | b |",
    "[ref]: http://x",
    "---",
    "===",
    "***",
    "- - -",
    "___",
    "``` a`b",
    "  - sub item",
    "  # heading in an item",
    "  ```",
    "a\u00a0b",
    "line\rwith CR",
]


def _mistune(body: str, first_line: int = 7) -> tuple[object, ...]:
    """parse_sections as it was: mistune for the structure, whatever the body."""
    original = markdown._plain_walk
    markdown._plain_walk = lambda body, lines: None
    try:
        return parse_sections(body, first_line)
    finally:
        markdown._plain_walk = original


def _bodies(seed: int, count: int, pool: list[str]) -> list[str]:
    rng = random.Random(seed)  # noqa: S311  (test data, not secrets)
    return ["\n".join(rng.choice(pool) for _ in range(rng.randint(1, 12))) for _ in range(count)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_plain_bodies_read_as_mistune_reads_them(seed: int) -> None:
    read_plainly = 0
    for body in _bodies(seed, 1500, PLAIN + OTHER[: seed * 3]):
        walked = markdown._plain_walk(body, body.split("\n"))
        if walked is not None:
            read_plainly += 1
            assert walked[0] == list(markdown._walk(markdown._markdown()(body))), body
        assert parse_sections(body, 7) == _mistune(body), body
    assert read_plainly > 300  # the fast path is taken, not only the fallback


@pytest.mark.parametrize("line", OTHER)
def test_markdown_beyond_the_plain_subset_goes_to_mistune(line: str) -> None:
    body = f"# Title\n\nSome text.\n{line}\n- item\n"
    assert markdown._plain_walk(body, body.split("\n")) is None
    assert parse_sections(body, 3) == _mistune(body, 3)


def test_the_shapes_of_real_atoms_take_the_plain_path() -> None:
    body = (
        "# Pitfall: the pool resets connections\n\nAfter a deploy the pool (size 20) resets.\n\n"
        "```text\nTraceback (most recent call last):\n# not a heading\n- not an item\n```\n\n"
        "## Fix\n\n- Retry with backoff, p < 0.05 of calls fail.\n- Set `pool.recycle`\n"
        "  to 300 s.\n1. first step\n2. second step\n\n**User:** why?\n\n**Claude:** because.\n"
    )
    assert markdown._plain_walk(body, body.split("\n")) is not None
    sections = parse_sections(body, 9)
    assert sections == _mistune(body, 9)
    assert [s.heading for s in sections] == ["Pitfall: the pool resets connections", "Fix"]
    assert [b.text for b in sections[1].bullets] == [
        "Retry with backoff, p < 0.05 of calls fail.",
        "Set pool.recycle to 300 s.",
        "first step",
        "second step",
    ]


def test_the_benchmark_atoms_read_alike(tmp_path: Path) -> None:
    """The real-size benchmark's atoms (when the public sets are here) parse alike."""
    import sys

    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root / "benchmarks"))
    try:
        from _common import data_dir
        from realsize import Corpus, atoms
    finally:
        sys.path.pop(0)
    data = data_dir(None)
    if data is None:
        pytest.skip("public data sets absent (../shared/data)")
    for _path, text in atoms(400, Corpus(data)):
        body = text.split("\n---\n", 1)[1]
        assert parse_sections(body, 9) == _mistune(body, 9)
