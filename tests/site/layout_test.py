"""The site a team opens on Monday (issue 45), in real headless Chromium: a memory of over a
hundred atoms in English and Chinese after two months of use (tests/site/bigmemory.py), every
page at 1400 px and at 390 px, checked by its DOM and by the pixels of its screenshots: nothing
wider than the screen, no word broken inside a table cell or a list row, no label over another,
each conflict once, and a start page that says what changed this week and what needs someone.

Screenshots are kept under pytest's temporary folder (the path is printed); the engineer who
changes the layout looks at them."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, cast
from urllib.parse import quote

import pytest
from PIL import Image

from tests.helpers import memkit
from tests.site.bigmemory import (
    CONFLICT,
    EARLIER,
    PENDING_ID,
    REVISES,
    THIS_WEEK,
    big_memory,
)
from tests.site.chromium import Browser, chromium_or_skip

chromium_or_skip()  # outside CI, the module is skipped when no Chromium is installed

WIDTHS = (1400, 390)
HEADER = (31, 58, 95)  # --head in site.css
# Pages whose screenshots a person looks at: one of each kind.
SHOWN = (
    "index.html",
    "atoms.html",
    "graph.html",
    "archive.html",
    "search.html",
    "atoms/frontend-pnpm.html",  # a new decision that supersedes another
    "atoms/frontend-package-manager.html",  # the one it superseded
    "atoms/redis-maxmemory.html",  # in a conflict, most used
    "atoms/regression-before-release-zh.html",  # Chinese
    f"atoms/{PENDING_ID}.html",  # waiting for review
    "atoms/go-version.html",  # a chain of supersedes
    "atoms/payments-api-deploy.html",  # related atoms, usage, history
)

# Words cut inside: for every text node in `main` (tables, lists, headings, paragraphs), each
# word (a run of letters and digits, "observed", "sessions", "2026") must lie on one line.
# Lines may break at spaces and punctuation (`a-b`, `a/b`, `ledger:<sha>`) and between CJK
# characters, as the browser's line breaking allows. Returns the words that do not.
BROKEN_WORDS = r"""
(() => {
  const cjk = '\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef';
  const run = new RegExp('(?:(?![' + cjk + '])[\\p{L}\\p{N}_]){2,}', 'gu');
  const bad = [];
  const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode())) {
    if (node.parentElement.closest('svg, pre')) continue;
    for (const m of node.data.matchAll(run)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const rects = [...range.getClientRects()].filter(r => r.width > 0.5);
      const lines = new Set(rects.map(r => Math.round(r.bottom)));
      if (lines.size > 1) bad.push(m[0]);
    }
  }
  return bad;
})()
"""

# Boxes that stick out of the page, or overlap each other where each should have its own
# place: the link rows and their gutter, the labels under "This week" and in the lists.
LAYOUT = r"""
(() => {
  const width = document.documentElement.clientWidth;
  const out = {scroll: document.documentElement.scrollWidth, wide: [], overlaps: [], rows: 0};
  for (const el of document.querySelectorAll('main *')) {
    if (el.closest('details:not([open])')) continue;
    const r = el.getBoundingClientRect();
    if (r.width && r.right > width + 0.5 && !el.closest('.chain li, pre')) {
      out.wide.push(el.tagName + '.' + el.className + ' ' + Math.round(r.right));
    }
  }
  const boxes = (sel) =>
    [...document.querySelectorAll(sel)].map(e => [e, e.getBoundingClientRect()]);
  const cross = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 &&
                          a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  for (const chain of document.querySelectorAll('.chain')) {
    const rows = boxes.call(null, '.chain li').filter(([e]) => chain.contains(e));
    out.rows += rows.length;
    const gutter = chain.querySelector('svg').getBoundingClientRect();
    rows.forEach(([e, r], i) => {
      if (cross(r, gutter)) out.overlaps.push('gutter/' + e.textContent);
      const own = e.closest('.card').getBoundingClientRect();
      if (r.right > own.right + 0.5) out.overlaps.push('leaves its card: ' + e.textContent);
      for (const [f, s] of rows.slice(i + 1)) {
        if (cross(r, s)) out.overlaps.push(e.textContent + ' / ' + f.textContent);
      }
      // each label inside its own row
      for (const a of e.querySelectorAll('a, strong, .meta, .badge, .tag')) {
        const b = a.getBoundingClientRect();
        if (b.top < r.top - 0.5 || b.bottom > r.bottom + 0.5) {
          out.overlaps.push('out of its row: ' + a.textContent);
        }
      }
    });
  }
  return out;
})()
"""

# Every label of a plot (an SVG opened on its own): inside the picture, none over another.
PLOT_LABELS = r"""
(() => {
  const svg = document.documentElement;
  const [, , w, h] = svg.getAttribute('viewBox').split(' ').map(Number);
  const texts = [...document.querySelectorAll('text')].map(t => [t.textContent, t.getBBox()]);
  const bad = [];
  texts.forEach(([s, b], i) => {
    if (b.x < 0 || b.y < 0 || b.x + b.width > w + 0.5 || b.y + b.height > h + 0.5) {
      bad.push('out: ' + s);
    }
    for (const [u, c] of texts.slice(i + 1)) {
      const across = b.x < c.x + c.width && c.x < b.x + b.width;
      if (across && b.y < c.y + c.height - 1 && c.y < b.y + b.height - 1) {
        bad.push(s + ' / ' + u);
      }
    }
  });
  return {bad, labels: texts.map(([s]) => s)};
})()
"""


@pytest.fixture(scope="module")
def monday(
    tmp_path_factory: pytest.TempPathFactory,
    module_home: Callable[[], AbstractContextManager[None]],
) -> Iterator[dict[str, Any]]:
    """The memory, its site built by the CLI, and what `memkit health --json` says of it."""
    base = tmp_path_factory.mktemp("monday")
    with module_home():
        repo = big_memory(base / "repo")
        built = memkit("site", "--out", str(base / "out"), cwd=repo)
        assert built.returncode == 0, built.stdout + built.stderr
        health = memkit("health", "--json", cwd=repo)
    checks = {c["kind"]: c for c in json.loads(health.stdout)["checks"]}
    yield {"repo": repo, "out": base / "out", "health": checks, "built": built.stdout}


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("site-screenshots")


def _size(chrome: Browser, width: int) -> None:
    chrome.send(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 500},
    )


def _open(chrome: Browser, out: Path, page: str) -> None:
    chrome.goto((out / page).as_uri())


def _pixels(path: Path) -> Image.Image:
    with Image.open(path) as image:
        return image.convert("RGB")


def test_the_memory_is_a_real_one(monday: dict[str, Any]) -> None:
    assert "108 atoms shown (not shown: 1 episodic, 1 personal, 1 refused)" in monday["built"]
    pages = list((monday["out"] / "atoms").glob("*.html"))
    assert len(pages) == 108
    zh = [p for p in pages if re.search(r"[\u4e00-\u9fff]", p.read_text("utf-8").split("<h1>")[1])]
    assert len(zh) >= 15


@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_fits_the_screen_and_breaks_lines_only_between_words(
    chrome: Browser, monday: dict[str, Any], shots: Path, width: int
) -> None:
    out = monday["out"]
    pages = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.html"))
    assert len(pages) > 110
    _size(chrome, width)
    problems: dict[str, Any] = {}
    for page in pages:
        _open(chrome, out, page)
        # What a click shows too: a conflict's two texts side by side.
        chrome.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
        layout = chrome.evaluate(LAYOUT)
        broken = chrome.evaluate(BROKEN_WORDS)
        if layout["scroll"] > width or layout["wide"] or layout["overlaps"] or broken:
            problems[page] = {**layout, "broken": broken}
        if page in SHOWN:
            shot = chrome.screenshot(
                shots / f"{page.replace('/', '_')}-{width}.png", full_page=True
            )
            image = _pixels(shot)
            # By its pixels: as wide as the screen, the header band across it, text drawn.
            assert image.width == width, (page, image.width)
            band = {image.getpixel((x, 8)) for x in range(0, width, 5)}
            assert HEADER in band, page
            colours = image.getcolors(maxcolors=1 << 24) or []
            dark = sum(
                n
                for n, (r, g, b) in cast("list[tuple[int, tuple[int, int, int]]]", colours)
                if r + g + b < 200
            )
            assert dark > 1_500, f"{page} at {width}px shows no text"
    print(f"\nscreenshots: {shots}")
    assert not problems, json.dumps(problems, ensure_ascii=False, indent=1)[:3000]


def test_links_are_rows_whose_labels_never_overlap(chrome: Browser, monday: dict[str, Any]) -> None:
    out = monday["out"]
    for width in WIDTHS:
        _size(chrome, width)
        _open(chrome, out, "graph.html")
        layout = chrome.evaluate(LAYOUT)
        assert layout["rows"] >= 30 and not layout["overlaps"], layout
        # the supersedes chain reads top down, newest first
        chain = chrome.evaluate(
            "[...document.querySelectorAll('.chain')].map(c => [...c.querySelectorAll('li .meta')]"
            ".map(m => m.textContent)).find(ids => ids.includes('go-version'))"
        )
        assert chain == ["go-version", "go-version-121", "go-version-120"]


def test_plots_have_titles_sensible_ranges_and_labels_that_fit(
    chrome: Browser, monday: dict[str, Any]
) -> None:
    out = monday["out"]
    titles = {}
    for name in ("atoms-over-time.svg", "review-throughput.svg", "usage-per-atom.svg"):
        _open(chrome, out, f"plots/{name}")
        found = chrome.evaluate(PLOT_LABELS)
        assert not found["bad"], (name, found["bad"])
        titles[name] = found["labels"][0]
        if name == "atoms-over-time.svg":
            # An ADR imported with its 2019 date does not stretch the axis over seven years:
            # it is counted in the first column, which is the memory's first commit's week.
            assert not any(
                label.startswith("20")
                for label in found["labels"][1:]
                if "-" in label and len(label) == 7
            )
            assert "1 atom(s) created before" in " ".join(found["labels"])
            weeks = [lab for lab in found["labels"] if re.fullmatch(r"\d\d-\d\d", lab)]
            assert 4 <= len(weeks) <= 7, found["labels"]
    assert titles == {
        "atoms-over-time.svg": "Atoms over time, by type",
        "review-throughput.svg": "Review: submitted, approved, rejected",
        "usage-per-atom.svg": "Most used atoms (sessions)",
    }


def test_each_conflict_once_as_memkit_health_counts_it(
    chrome: Browser, monday: dict[str, Any]
) -> None:
    # The audit named the pair one way, Alice's write since the other way: one conflict.
    health = monday["health"]["conflicts"]
    assert health["count"] == 1, health
    _size(chrome, 1400)
    _open(chrome, monday["out"], "index.html")
    pairs = chrome.evaluate(
        "[...document.querySelectorAll('article.conflict')].map(a => a.dataset.pair)"
    )
    assert pairs == [" ".join(sorted(CONFLICT))]
    needs = chrome.evaluate("document.getElementById('needs').innerText")
    assert "1 conflict between atoms" in needs
    fix = chrome.evaluate("document.querySelector('article.conflict .fix-line').innerText")
    assert "supersedes: [redis-maxmemory]" in fix and "memkit validate --fix" in fix
    assert "`" not in fix  # code, not backticks
    # Each of the two atoms' pages names the other once.
    for atom_id, other in (CONFLICT, CONFLICT[::-1]):
        _open(chrome, monday["out"], f"atoms/{atom_id}.html")
        said = chrome.evaluate(
            "[...document.querySelectorAll('#findings li')].map(li => li.innerText)"
        )
        assert len(said) == 1 and said[0].startswith(f"contradicts {other}:"), said


def test_monday_morning_the_start_page_says_what_changed_and_what_needs_someone(
    chrome: Browser, monday: dict[str, Any], shots: Path
) -> None:
    """What a person reads on the first screen, without scrolling, on a laptop."""
    out, repo = monday["out"], monday["repo"]
    _size(chrome, 1400)
    _open(chrome, out, "index.html")
    shot = chrome.screenshot(shots / "monday-first-screen.png")  # the first screen only
    assert _pixels(shot).size == (1400, 900)
    tops = chrome.evaluate(
        "Object.fromEntries(['needs', 'week'].map(id => "
        "[id, document.getElementById(id).getBoundingClientRect().top]))"
    )
    assert all(top < 400 for top in tops.values()), tops

    def titles(section: str, heading: str) -> list[str]:
        script = (
            f"(() => {{ const h = [...document.querySelectorAll('#{section} h3')]"
            f".find(h => h.textContent.startsWith({json.dumps(heading)}));"
            " if (!h) return [];"
            " return [...h.nextElementSibling.querySelectorAll(':scope > li')]"
            ".map(li => li.querySelector('a').getAttribute('href')); })()"
        )
        hrefs: list[str] = chrome.evaluate(script)
        return [h.rsplit("/", 1)[-1].removesuffix(".html") for h in hrefs]

    new = titles("week", "New")
    assert sorted(new) == sorted([*THIS_WEEK["new"], CONFLICT[0]])
    assert new[:3] == ["regression-before-release-zh", "tracing-opentelemetry", "frontend-pnpm"]
    assert titles("week", "Superseded") == THIS_WEEK["superseded"]
    assert sorted(titles("week", "Edited")) == sorted(THIS_WEEK["edited"])
    assert titles("week", "Archived or rejected") == THIS_WEEK["retired"]
    week = chrome.evaluate("document.getElementById('week').innerText")
    for atom_id in EARLIER:
        assert f"/{atom_id}.html" not in chrome.evaluate(
            "document.getElementById('week').innerHTML"
        ), atom_id
    assert "replaces" in week and "approved" in week
    # A decision changed through review is an edit of it, said to be approved; not a new atom.
    revised = chrome.evaluate(
        f"document.querySelector('#week a[href$=\"/{REVISES}.html\"]').parentElement.innerText"
    )
    assert "approved change" in revised, revised
    # What needs someone: the conflict, the proposal with its two commands, the refused file.
    needs = chrome.evaluate("document.getElementById('needs').innerText")
    assert "1 atom waiting for review" in needs and "memkit review approve ID" in needs
    assert "1 invalid atom files (not served)" in needs and "memkit validate" in needs
    pending = chrome.evaluate("document.getElementById('pending').innerText")
    assert f"memkit review approve {PENDING_ID}" in pending
    assert f"memkit review reject {PENDING_ID} --reason TEXT" in pending
    # The most used atoms, from the team's usage exports.
    used = chrome.evaluate(
        "[...document.querySelectorAll('#used tbody tr')].map(r => r.querySelector('a')"
        ".getAttribute('href'))"
    )
    assert used[:2] == ["atoms/payments-api-deploy.html", "atoms/redis-maxmemory.html"]
    # Search in the middle leads to the search page, which finds Chinese offline.
    form = chrome.evaluate(
        "(() => { const f = document.querySelector('form.big-search');"
        " return [f.getAttribute('action'), f.querySelector('input').name]; })()"
    )
    assert form == ["search.html", "q"]
    chrome.goto((out / "search.html").as_uri() + "?q=" + quote("回歸測試"))
    chrome.evaluate("window.memkitSearch.idle()")
    found = chrome.evaluate(
        "[...document.querySelectorAll('#results li a')].map(a => a.getAttribute('href'))"
    )
    assert found[:1] == ["atoms/regression-before-release-zh.html"]
    assert (repo / "shared/regression-before-release-zh.md").is_file()


def test_chinese_is_drawn_with_a_font_the_stylesheet_names(
    chrome: Browser, monday: dict[str, Any]
) -> None:
    """Not boxes: the CJK title renders with one of the fonts the stylesheet's stack names
    (scripts/test.sh installs one, as a reader's system has one)."""
    fonts = (
        subprocess.run(
            ["fc-list", ":lang=zh", "family"], capture_output=True, text=True, check=False
        ).stdout
        if shutil.which("fc-list")
        else ""
    )
    if not fonts.strip():
        if os.environ.get("CI") == "true":
            raise AssertionError("no CJK font: scripts/test.sh installs fonts-wqy-microhei")
        pytest.skip("no CJK font on this machine")
    css = (monday["out"] / "assets/site.css").read_text(encoding="utf-8")
    stack = re.search(r"--sans:(.*?);", css, re.S)
    assert stack is not None
    named = set(re.findall(r'"([^"]+)"', stack.group(1)))
    assert {"Microsoft YaHei", "PingFang SC", "Noto Sans CJK SC", "WenQuanYi Micro Hei"} <= named
    _size(chrome, 1400)
    _open(chrome, monday["out"], "atoms/regression-before-release-zh.html")
    chrome.send("DOM.enable")
    chrome.send("CSS.enable")
    root = chrome.send("DOM.getDocument")["root"]["nodeId"]
    heading = chrome.send("DOM.querySelector", {"nodeId": root, "selector": "h1"})["nodeId"]
    used = chrome.send("CSS.getPlatformFontsForNode", {"nodeId": heading})["fonts"]
    cjk = [f for f in used if f["glyphCount"] >= 10]
    assert cjk and cjk[0]["familyName"] in named, used


def test_no_page_shows_markdown_s_backticks(monday: dict[str, Any]) -> None:
    """What memkit prints for a terminal (health's fixes, findings, the audit's fix) and what
    atoms say in code spans is shown as code on every page."""
    for path in sorted(monday["out"].rglob("*.html")):
        main = path.read_text(encoding="utf-8").split("<main>", 1)[1]
        assert "`" not in main, path


def test_what_is_never_shown_stays_unshown(monday: dict[str, Any]) -> None:
    """Archived, a session summary is still its author's, and a personal atom its owner's."""
    for path in sorted(monday["out"].rglob("*")):
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            for never in ("session-2026-bob", "Session summary of Bob", "bob-salary", "salary"):
                assert never not in text, (never, path)
