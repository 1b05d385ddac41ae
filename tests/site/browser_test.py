"""The site in a real browser (issue 32): headless Chromium, Debian's package, opening the files
from disk as a person would. Skipped only outside CI when no Chromium is installed
(scripts/test.sh installs it); under CI=true a missing Chromium fails."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import cast

import pytest
from PIL import Image

from memkit.site.search import stem
from tests.helpers import memkit
from tests.site.chromium import Browser, chromium_or_skip
from tests.site.memory import NEVER_SHOWN, team_memory

chromium_or_skip()  # outside CI, the module is skipped when no Chromium is installed

HEADER = (31, 58, 95)  # --head in site.css
WASH = (244, 246, 250)  # --wash: the page's background
WHITE = (255, 255, 255)  # cards


@pytest.fixture(scope="module")
def site(
    tmp_path_factory: pytest.TempPathFactory,
    module_home: Callable[[], AbstractContextManager[None]],
) -> Path:
    base = tmp_path_factory.mktemp("site-browser")
    with module_home():
        repo = team_memory(base / "repo")
        built = memkit("site", "--out", str(base / "out"), cwd=repo)
        assert built.returncode == 0, built.stdout + built.stderr
    return base / "out"


@pytest.fixture(scope="module")
def artefacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Screenshots are kept here (printed, and under pytest's temporary folder)."""
    return tmp_path_factory.mktemp("site-screenshots")


def _open(chrome: Browser, site: Path, page: str, query: str = "") -> None:
    chrome.goto((site / page).as_uri() + query)


def _colours(path: Path) -> dict[tuple[int, int, int], int]:
    with Image.open(path) as image:
        rgb = image.convert("RGB")
        found = rgb.getcolors(maxcolors=1 << 24) or []
        return {cast("tuple[int, int, int]", colour): n for n, colour in found}


def _row(path: Path, y: int) -> set[tuple[int, int, int]]:
    with Image.open(path) as image:
        rgb = image.convert("RGB")
        return {rgb.getpixel((x, y)) for x in range(0, rgb.width, 7)}  # type: ignore[misc]


def test_start_and_atom_pages_show_their_titles_and_look_right(
    chrome: Browser, site: Path, artefacts: Path
) -> None:
    chrome.send(
        "Emulation.setDeviceMetricsOverride",
        {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False},
    )
    _open(chrome, site, "index.html")
    assert chrome.evaluate("document.title") == "Start · repo"
    headings = chrome.evaluate("[...document.querySelectorAll('h2')].map(h => h.textContent)")
    for section in ("Health", "Conflicts", "Waiting for review", "Recent changes", "Plots"):
        assert section in headings
    # the plots are drawn (an <img> that failed to load has no natural width)
    widths = chrome.evaluate("[...document.images].map(i => i.naturalWidth)")
    assert len(widths) == 3 and all(w > 0 for w in widths)
    start = chrome.screenshot(artefacts / "start.png", full_page=True)

    _open(chrome, site, "atoms/ws-heartbeat-interval.html")
    assert chrome.evaluate("document.querySelector('h1').textContent").startswith(
        "WebSocket connections need a 30 s heartbeat"
    )
    # its links: one atom a row, the arcs beside them
    assert chrome.evaluate("document.querySelectorAll('.chain li a').length") == 2
    assert chrome.evaluate("document.querySelector('svg.arcs path.edge-supersedes') !== null")
    atom = chrome.screenshot(artefacts / "atom.png", full_page=True)
    print(f"\nscreenshots: {start} {atom}")

    for shot in (start, atom):
        colours = _colours(shot)
        assert len(colours) > 50, f"{shot} looks blank"
        assert HEADER in _row(shot, 10), "the header band is missing"
        assert colours.get(WASH, 0) > 10_000 and colours.get(WHITE, 0) > 10_000
        # text: many dark pixels, not one colour block
        dark = sum(n for (r, g, b), n in colours.items() if r + g + b < 200)
        assert dark > 2_000, f"{shot} shows no text"


def test_pages_fit_a_phone(chrome: Browser, site: Path, artefacts: Path) -> None:
    chrome.send(
        "Emulation.setDeviceMetricsOverride",
        {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True},
    )
    try:
        for page in ("index.html", "atoms/deploy-with-argo.html", "search.html"):
            _open(chrome, site, page)
            wide = chrome.evaluate("document.documentElement.scrollWidth")
            assert wide <= 390, f"{page} is {wide}px wide on a 390px screen"
        chrome.screenshot(artefacts / "atom-phone.png", full_page=True)
    finally:
        chrome.send("Emulation.clearDeviceMetricsOverride")


def _search(chrome: Browser, query: str) -> list[str]:
    """Type into the page's own search box; the ids of the results it lists."""
    script = (
        "(async () => { const box = document.getElementById('q'); box.value = %s;"
        " box.dispatchEvent(new Event('input')); await window.memkitSearch.idle();"
        " return [...document.querySelectorAll('#results li a')]"
        ".map(a => a.getAttribute('href')); })()"
    )
    import json

    hrefs: list[str] = chrome.evaluate(script % json.dumps(query))
    return [h.rsplit("/", 1)[-1].removesuffix(".html") for h in hrefs]


def test_search_finds_english_and_chinese_atoms_offline(chrome: Browser, site: Path) -> None:
    _open(chrome, site, "search.html", "?q=websocket%20heartbeats")
    chrome.evaluate("window.memkitSearch.idle()")
    listed = chrome.evaluate(
        "[...document.querySelectorAll('#results li a')].map(a => a.textContent)"
    )
    # live atoms first; the superseded one after them
    assert listed == [
        "WebSocket heartbeat every 90 s",
        "WebSocket connections need a 30 s heartbeat",
        "WebSocket heartbeat every 60 s",
    ]
    assert _search(chrome, "deploying argo") == ["deploy-with-argo"]
    assert _search(chrome, "rolls back") == ["deploy-with-argo"]
    assert _search(chrome, "快取失效") == ["cache-ttl-zh"]
    assert _search(chrome, "十分鐘") == ["cache-ttl-zh"]
    assert _search(chrome, "depl")[:1] == ["deploy-with-argo"]  # still typing
    assert _search(chrome, "websocket 快取") == []
    assert _search(chrome, "hunter2") == [] and _search(chrome, "salary") == []
    # The page's stemmer is search.py's, rule for rule.
    words = [
        "deploying", "deployed", "deploys", "caching", "heartbeats", "agreed", "feed",
        "hopping", "hoping", "filing", "rated", "troubled", "sized", "quickly", "happy",
        "status", "analysis", "glasses", "ponies", "ties", "abilities", "running", "fixed",
        "supersedes", "related", "tries", "ok",
    ]  # fmt: skip
    in_page = chrome.evaluate(f"{words!r}.map(w => window.memkitSearch.stem(w))")
    assert in_page == [stem(w) for w in words]


def test_markup_in_an_atom_is_shown_as_text_and_never_runs(chrome: Browser, site: Path) -> None:
    _open(chrome, site, "atoms/escaping-check.html")
    assert chrome.evaluate("typeof window.__pwned") == "undefined"
    assert chrome.evaluate("document.title").startswith("Escaping check <script>")
    assert chrome.evaluate("document.querySelectorAll('script').length") == 0
    assert chrome.evaluate("document.querySelectorAll('[onerror], img').length") == 0
    text = chrome.evaluate("document.querySelector('article.body').innerText")
    assert '<script>window.__pwned=1;document.title="PWNED"</script>' in text
    assert '<img src=x onerror="window.__pwned=2">' in text
    # The same title among search results: text too.
    _open(chrome, site, "search.html", "?q=escaping")
    chrome.evaluate("window.memkitSearch.idle()")
    assert chrome.evaluate("typeof window.__pwned") == "undefined"
    assert chrome.evaluate("document.querySelector('#results a').textContent").startswith(
        "Escaping check <script>"
    )


def test_no_request_leaves_the_folder(chrome: Browser, site: Path) -> None:
    chrome.events.clear()
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    assert len(pages) > 10
    for page in pages:
        _open(chrome, site, page)
    _open(chrome, site, "search.html", "?q=deploy 快取")
    chrome.evaluate("window.memkitSearch.idle()")  # the shards the query loaded, too
    requests = chrome.requests()
    assert any("/assets/search/" in url for url in requests)
    inside = site.as_uri() + "/"
    assert requests and all(url.startswith(inside) for url in requests), [
        url for url in requests if not url.startswith(inside)
    ]
    # Nothing tried and was blocked either: no policy violation, no script error.
    assert not [m for m in chrome.messages() if "Content Security Policy" in m or "Error" in m]
    for url in requests:
        path = Path(url.removeprefix("file://").split("?", 1)[0])
        text = path.read_text(encoding="utf-8")
        for never in NEVER_SHOWN:
            assert never not in text
