"""`memkit site` (issue 32) without a browser: what the files hold, what they never hold, what a
second build reuses. tests/site/browser_test.py opens the same site in Chromium."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from memkit.atom.read import read_atom
from memkit.config import load_config
from memkit.site.collect import hidden_because
from memkit.site.markdown import known_pages, make_renderer
from memkit.site.search import Doc, SearchIndex, search, stem, terms
from tests.helpers import copy_made, git, memkit, write_atom
from tests.site.memory import (
    ATOMS,
    INJECTION,
    NEVER_SHOWN,
    ONERROR,
    PENDING,
    PRIVATE,
    SECRET,
    XSS,
    team_memory,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def made(
    tmp_path_factory: pytest.TempPathFactory,
    module_home: Callable[[], AbstractContextManager[None]],
) -> Path:
    """The team's memory and its site, built once for the module."""
    base = tmp_path_factory.mktemp("site")
    with module_home():
        repo = team_memory(base / "repo")
        built = memkit("site", "--out", str(base / "out"), cwd=repo)
        assert built.returncode == 0, built.stdout + built.stderr
        (base / "built.txt").write_text(built.stdout, encoding="utf-8")
    return base


@pytest.fixture
def team(made: Path, tmp_path: Path) -> Iterator[Path]:
    """This test's own copy of the memory and its site."""
    yield copy_made(made, tmp_path / "copy")


def _all_bytes(out: Path) -> Iterator[tuple[Path, bytes]]:
    for path in sorted(out.rglob("*")):
        if path.is_file():
            yield path, path.read_bytes()


def test_every_shown_atom_has_a_page_and_nothing_refused_is_anywhere(made: Path) -> None:
    out = made / "out"
    pages = {p.stem for p in (out / "atoms").glob("*.html")}
    shown = {
        "ws-heartbeat-interval",
        "ws-heartbeat-60s",
        "ws-heartbeat-90s",
        "deploy-with-argo",
        "cache-ttl-zh",
        "escaping-check",
        "python-version",
        "jenkins-nightly",
        "use-postgres-16",
    }
    assert pages == shown
    summary = (made / "built.txt").read_text(encoding="utf-8")
    assert "9 atoms shown (not shown: 1 episodic, 1 personal, 3 refused)" in summary
    # The secret (also in a commit message), the <private> text, the injection, another
    # person's atom and a session summary: in no file of the output, under any name.
    for path, data in _all_bytes(out):
        text = data.decode("utf-8")
        for never in NEVER_SHOWN:
            assert never not in text, (never, path)
        assert "helpful-tip" not in text and "db-access" not in text, path
    # Nor in what the site keeps for its next build in this clone (.memkit/site-cache.json).
    cache = (made / "repo/.memkit/site-cache.json").read_text(encoding="utf-8")
    assert "ws-heartbeat-interval" in cache
    for never in (SECRET, PRIVATE, INJECTION):
        assert never not in cache


def test_the_atom_page_shows_frontmatter_links_usage_and_history(made: Path) -> None:
    page = (made / "out/atoms/ws-heartbeat-interval.html").read_text(encoding="utf-8")
    assert "<h1>WebSocket connections need a 30 s heartbeat" in page
    assert "<dt>triggers</dt><dd>websocket, heartbeat</dd>" in page
    assert "<dt>file</dt><dd>shared/<wbr>ws-heartbeat-interval.md</dd>" in page
    # what it says first, its frontmatter after
    assert page.index('<article class="card body">') < page.index("<h2>Frontmatter</h2>")
    # supersedes and related, both ways, as links to the other atoms' pages
    assert 'href="ws-heartbeat-60s.html"' in page and 'href="deploy-with-argo.html"' in page
    # the conflict it is in, with the edit that settles it
    assert "contradicts <code>ws-heartbeat-90s</code>: different values for heartbeat" in page
    assert "`" not in page.split("<main>", 1)[1]  # code spans rendered, not shown as backticks
    older = (made / "out/atoms/ws-heartbeat-60s.html").read_text(encoding="utf-8")
    assert "Superseded by" in older and 'href="ws-heartbeat-interval.html"' in older
    related = (made / "out/atoms/deploy-with-argo.html").read_text("utf-8")
    assert '<span class="tag">related</span> <a href="ws-heartbeat-interval.html">' in related
    # a link to another atom's file goes to its page; one out carries rel=noopener
    assert '<a href="deploy-with-argo.html">deploying</a>' in page
    assert '<a href="https://www.rfc-editor.org/rfc/rfc6455" rel="noopener noreferrer">' in page
    # usage from usage/bob.json: 3 sessions confirmed, 1 contradicted
    assert '<td data-label="evidence">sessions that confirmed it</td>' in page
    assert '<td class="num" data-label="sessions">3</td>' in page
    assert 'contradicted it</td><td class="num" data-label="sessions">1</td>' in page
    assert "Alice Test" in page and "the team&#x27;s atoms" in page  # history: who, what


def test_markup_in_an_atom_is_text(made: Path) -> None:
    page = (made / "out/atoms/escaping-check.html").read_text(encoding="utf-8")
    body = page.split("<main>", 1)[1]
    assert "<script" not in page and "onerror=" not in body.replace("onerror=&quot;", "")
    assert "&lt;script&gt;window.__pwned=1" in body
    assert "&lt;img src=x onerror=&quot;window.__pwned=2&quot;&gt;" in body
    assert "javascript:" not in body.replace('title="javascript:', "")
    assert "<img" not in body  # a picture from elsewhere is a link, never loaded
    assert 'href="https://tracker.example.com/pixel.png" rel="noopener noreferrer"' in body
    for name in ("index.html", "atoms.html", "search.html", "atoms/escaping-check.html"):
        head = (made / "out" / name).read_text(encoding="utf-8").split("</head>", 1)[0]
        assert "default-src &#x27;none&#x27;" not in head  # the policy is written, not escaped
        assert "content=\"default-src 'none'; script-src 'self'; style-src 'self'" in head


def test_start_page_says_what_needs_doing_with_the_fix(made: Path) -> None:
    start = (made / "out/index.html").read_text(encoding="utf-8")
    # the conflict, side by side, with the edit that resolves it
    assert start.count('<article class="conflict"') == 1
    conflict = start.split('<article class="conflict"', 1)[1].split("</article>", 1)[0]
    conflict = conflict.replace("<wbr>", "")  # where a long code span may wrap
    assert "<strong>contradicts</strong>" in conflict
    assert "ws-heartbeat-90s" in conflict and "ws-heartbeat-interval" in conflict
    assert (
        "add <code>supersedes: [ws-heartbeat-interval]</code> to "
        "<code>shared/ws-heartbeat-90s.md</code>"
    ) in conflict
    # review: the pending atom, its findings (the write gate's score), the commands
    assert "Use PostgreSQL 16 for new services" in start
    assert "write gate: pass" in start
    assert "memkit review approve use-postgres-16" in start
    # health as `memkit health` says it, with its fixes
    assert "waiting for review" in start and "memkit review list" in start
    assert "invalid atom files (not served)" in start and "memkit validate" in start
    # counts of what is shown, recent changes, plots
    assert "role:programmer 1" in start
    assert "tips (key AKIA…(20 chars))" in start  # the commit message, its secret masked
    for name in ("atoms-over-time", "review-throughput", "usage-per-atom"):
        assert f'src="plots/{name}.svg"' in start
    usage = (made / "out/plots/usage-per-atom.svg").read_text(encoding="utf-8")
    assert ">Deploying services with Argo CD</text>" in usage and ">7</text>" in usage
    assert "<title>Most used atoms (sessions)</title>" in usage


def test_archive_and_lists(made: Path) -> None:
    archive = (made / "out/archive.html").read_text(encoding="utf-8")
    assert "The nightly Jenkins job" in archive and "moved to GitHub Actions" in archive
    assert "WebSocket heartbeat every 60 s" in archive
    atoms = (made / "out/atoms.html").read_text(encoding="utf-8")
    assert "Deploying services with Argo CD" in atoms and "The nightly Jenkins job" not in atoms
    graph = (made / "out/graph.html").read_text(encoding="utf-8")
    assert 'class="edge-supersedes"' in graph and 'class="edge-related"' in graph


def test_a_second_build_reuses_every_page_and_a_change_rewrites_only_its_pages(
    team: Path,
) -> None:
    repo, out = team / "repo", team / "out"
    again = memkit("site", "--out", str(out), cwd=repo)
    assert again.returncode == 0, again.stderr
    assert " 0 file(s) written" in again.stdout, again.stdout
    before = {p: p.stat().st_mtime_ns for p in (out / "atoms").glob("*.html")}
    text = ATOMS["shared/deploy-with-argo.md"].replace(
        "Deploying services with Argo CD", "Deploying with Argo CD"
    )
    write_atom(repo, "shared/deploy-with-argo.md", text)
    changed = memkit("site", "--out", str(out), cwd=repo)
    assert changed.returncode == 0, changed.stderr
    rewritten = {p.stem for p, t in before.items() if p.stat().st_mtime_ns != t}
    # the atom, and the one whose page names its title (related)
    assert rewritten == {"deploy-with-argo", "ws-heartbeat-interval"}
    # a deleted atom's page goes; files the site never wrote stay
    (out / "atoms/notes.txt").write_text("mine", encoding="utf-8")
    (repo / "shared/cache-ttl-zh.md").unlink()
    gone = memkit("site", "--out", str(out), cwd=repo)
    assert gone.returncode == 0, gone.stderr
    # its page, and the search shards only its Chinese text filled
    assert re.search(r" [1-9][0-9]* removed", gone.stdout), gone.stdout
    assert not (out / "atoms/cache-ttl-zh.html").exists()
    assert (out / "atoms/notes.txt").read_text(encoding="utf-8") == "mine"


def test_a_folder_the_site_did_not_write_is_refused(team: Path, tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "index.html").write_text("my own page", encoding="utf-8")
    result = memkit("site", "--out", str(mine), cwd=team / "repo")
    assert result.returncode == 1
    assert "not empty and was not written by `memkit site`" in result.stderr
    assert (mine / "index.html").read_text(encoding="utf-8") == "my own page"


def test_an_approved_atom_keeps_the_history_it_had_in_review(team: Path) -> None:
    repo, out = team / "repo", team / "out"
    git(repo, "mv", "shared/_pending/use-postgres-16.md", "shared/use-postgres-16.md")
    git(repo, "commit", "-q", "--no-verify", "-m", "review: approve use-postgres-16")
    assert memkit("site", "--out", str(out), cwd=repo).returncode == 0
    page = (out / "atoms/use-postgres-16.html").read_text(encoding="utf-8")
    assert "review: approve use-postgres-16" in page and "the team&#x27;s atoms" in page
    assert "Waiting for review" not in page
    review = (out / "plots/review-throughput.svg").read_text(encoding="utf-8")
    assert " approved: 1</title>" in review and " submitted: 1</title>" in review


def test_what_may_be_shown_is_one_decision(team: Path) -> None:
    repo = team / "repo"
    config = load_config(repo)

    def verdict(relpath: str) -> str:
        parsed = read_atom(repo, relpath, config)
        from memkit.admission.decide import error_codes, file_findings

        return hidden_because(parsed.atom, error_codes(file_findings(parsed, config)))

    assert verdict("shared/deploy-with-argo.md") == ""
    assert verdict("roles/programmer/python-version.md") == ""
    assert verdict("shared/_pending/use-postgres-16.md") == ""
    assert verdict("archive/jenkins-nightly.md") == ""
    assert verdict("personal/bob/bob-salary.md") == "personal"
    assert verdict("episodic/session-2026-03-01.md") == "episodic"
    # Archived where it was, a session summary or a person's atom is still theirs alone.
    summary = read_atom(repo, "episodic/session-2026-03-01.md", config).atom
    assert summary is not None
    for before, why in (("episodic/s.md", "episodic"), ("personal/bob/s.md", "personal")):
        archived = dataclasses.replace(summary, path=f"archive/{before}", scope="archive")
        assert hidden_because(archived, []) == why
    rejected = dataclasses.replace(summary, path="archive/rejected/s.md", scope="archive")
    assert hidden_because(rejected, []) == ""
    for refused in ("shared/deploy-key.md", "shared/db-access.md", "shared/helpful-tip.md"):
        assert verdict(refused) == "refused"
    # A reference to no atom refuses the file too (MK010), as `memkit validate` does.
    atom = read_atom(repo, "shared/deploy-with-argo.md", config).atom
    assert atom is not None
    assert hidden_because(dataclasses.replace(atom), ["MK010"]) == "refused"


def test_markdown_renders_safely() -> None:
    render = make_renderer(known_pages({"other-atom"}))
    html = render(
        f"# T\n\n{XSS}\n\n{ONERROR}\n\n[a](other-atom.md) [b](missing.md) [c](data:text/html,x) "
        "[d](https://example.com/x?a=1&b=2) ![e](../secret.png)\n\n| a | b |\n|:-|-:|\n| 1 | 2 |"
    )
    assert "<script" not in html and "<img" not in html
    assert '<a href="other-atom.html">a</a>' in html
    assert '<span class="link" title="missing.md">b</span>' in html
    assert '<span class="link" title="data:text/html,x">c</span>' in html
    assert 'href="https://example.com/x?a=1&amp;b=2" rel="noopener noreferrer"' in html
    assert '<span class="image">[image: e]</span>' in html
    assert '<th class="align-left">a</th>' in html and "style=" not in html


def test_search_terms_stem_english_and_pair_chinese() -> None:
    assert [stem(w) for w in ("deploying", "deployed", "deploys", "heartbeats", "caching")] == [
        "deploy",
        "deploy",
        "deploy",
        "heartbeat",
        "cach",
    ]
    assert terms("心跳間隔 for WebSockets") == ["心跳", "跳間", "間隔", "websocket"]
    assert terms("快") == ["快"]
    index = SearchIndex()
    for n, (title, body) in enumerate(
        [("WebSocket heartbeat", "ping every 30 s"), ("快取失效時間", "十分鐘後失效")]
    ):
        doc = Doc(f"a{n}", title, "fact", "shared", "live", "")
        index.add(doc, title=title, keys=(), body=body)
    assert [d.id for d in search(index, "heartbeats pinging")] == ["a0"]
    assert [d.id for d in search(index, "快取 失效")] == ["a1"]
    assert search(index, "heartbeat 快取") == []
    files = index.files()
    main = files["search-index.js"]
    assert main.startswith("window.MEMKIT_SEARCH={") and "<" not in main
    data = json.loads(main.removeprefix("window.MEMKIT_SEARCH=").removesuffix(";\n"))
    assert re.compile(data["cjk"]).pattern and "the" in data["stop"]
    # postings by first character: "websocket" in shard w, "快取" in the shard of 快
    assert '"websocket":"0.3"' in files["search/w.js"]  # title (3), and not in the body
    assert '"快取":"1.3"' in files[f"search/x{ord('快') % 64:x}.js"]


def test_pending_atom_waits_under_review_not_among_live_atoms(made: Path) -> None:
    atoms = (made / "out/atoms.html").read_text(encoding="utf-8")
    assert "use-postgres-16" not in atoms
    page = (made / "out/atoms/use-postgres-16.html").read_text(encoding="utf-8")
    assert "Waiting for review in shared/_pending/" in page
    assert "use-postgres-16" in PENDING["shared/_pending/use-postgres-16.md"]


def test_the_site_does_not_stand_on_the_claude_code_adapter() -> None:
    from tests.layers_test import import_graph

    graph = import_graph()
    site = {m for m in graph if m == "memkit.site" or m.startswith("memkit.site.")}
    direct = {m for s in site for m in graph[s]}
    assert site and not [m for m in direct if m.startswith("memkit.claude")]


WORKFLOWS = {
    "ci/github/memkit-site.yml": "_site",
    "ci/gitlab/memkit-site.gitlab-ci.yml": "public",
}


def _job_commands(path: str) -> list[str]:
    """The shell commands a workflow runs after installing memkit."""
    data = YAML(typ="safe", pure=True).load((ROOT / path).read_text(encoding="utf-8"))
    if "jobs" in data:
        steps = data["jobs"]["build"]["steps"]
        return [s["run"] for s in steps if "run" in s and "pip install" not in s["run"]]
    return [str(line) for line in data["pages"]["script"]]


@pytest.mark.parametrize("path", sorted(WORKFLOWS))
def test_the_pages_jobs_publish_what_a_fresh_clone_builds(
    path: str, made: Path, tmp_path: Path
) -> None:
    text = (ROOT / path).read_text(encoding="utf-8")
    out = WORKFLOWS[path]
    # the default branch only, the whole history, memkit from its own repository
    assert "default_branch" in text or "$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH" in text
    assert "fetch-depth: 0" in text or 'GIT_DEPTH: "0"' in text
    commands = "\n".join(ln for ln in text.splitlines() if not ln.strip().startswith("#"))
    assert 'pip install "$MEMKIT_PACKAGE"' in text
    assert not re.search(r"pip install +memkit\b", commands)
    assert f"path: {out}" in text or f"- {out}" in text  # what is published is what was built
    # CI's clone: fresh, on another path, no .memkit/ (no index, no audit report).
    clone = tmp_path / "ci-clone"
    git(tmp_path, "clone", "-q", str(made / "repo"), str(clone))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for command in _job_commands(path):
        ran = subprocess.run(
            ["bash", "-e", "-c", command],
            cwd=clone,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert ran.returncode == 0, (command, ran.stdout, ran.stderr)
    start = (clone / out / "index.html").read_text(encoding="utf-8")
    assert '<article class="conflict"' in start and "ws-heartbeat-90s" in start
    assert (clone / out / "atoms/ws-heartbeat-interval.html").is_file()
    for _, data in _all_bytes(clone / out):
        assert SECRET.encode() not in data
    shutil.rmtree(clone / ".memkit" / "models", ignore_errors=True)  # 70 MB, derived


def test_the_cache_keeps_no_verdict_past_a_change_of_rules_and_no_stale_link(team: Path) -> None:
    repo, out = team / "repo", team / "out"
    again = memkit("site", "--out", str(out), cwd=repo)
    assert "0 of 14 atom file(s) read" in again.stdout, again.stdout  # all known, unchanged
    # The injection was refused under `gate: {injection: fail}`; under warn it is admitted.
    config = repo / "memkit.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("injection: fail", "injection: warn"),
        encoding="utf-8",
    )
    relaxed = memkit("site", "--out", str(out), cwd=repo)
    assert "14 of 14 atom file(s) read" in relaxed.stdout, relaxed.stdout
    assert (out / "atoms/helpful-tip.html").is_file()
    # A body's link to an atom that is no longer shown becomes text on the next build.
    page = out / "atoms/ws-heartbeat-interval.html"
    assert '<a href="deploy-with-argo.html">deploying</a>' in page.read_text(encoding="utf-8")
    # (still an atom, so no reference dangles: one the site does not show)
    (repo / "personal/alice").mkdir(parents=True)
    (repo / "shared/deploy-with-argo.md").rename(repo / "personal/alice/deploy-with-argo.md")
    gone = memkit("site", "--out", str(out), cwd=repo)
    assert gone.returncode == 0, gone.stderr
    text = page.read_text(encoding="utf-8")
    assert 'href="deploy-with-argo.html"' not in text
    assert '<span class="link" title="deploy-with-argo.md">deploying</span>' in text
    assert "1 link(s) to atoms this site does not show." in text  # `related`, counted


def test_an_unchanged_atom_s_page_follows_what_it_shows_from_elsewhere(team: Path) -> None:
    repo, out = team / "repo", team / "out"
    page = out / "atoms/cache-ttl-zh.html"
    assert "No use recorded in the team&#x27;s usage exports" in page.read_text("utf-8")
    (repo / "usage/bob.json").unlink()  # its file unchanged, what it says of usage is not
    assert memkit("site", "--out", str(out), cwd=repo).returncode == 0
    # No usage section at all: the start page says once how to begin exporting usage.
    assert "<h2>Usage</h2>" not in page.read_text(encoding="utf-8")
    assert "No usage exported yet" not in page.read_text(encoding="utf-8")
    assert "No usage exported yet" in (out / "index.html").read_text(encoding="utf-8")


def test_the_start_page_lists_stale_atoms_when_drift_says_which(
    team: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stale atoms are `memkit health`'s `drift` line (`memkit drift`, issue 44): without it
    the page says nothing about staleness; with it, the count and the fix under "Needs
    someone", and each atom linked with its evidence, code rendered, under Health."""
    from memkit.lifecycle.health import Line, build_health
    from memkit.site import build

    repo, out = team / "repo", team / "out"
    start = (out / "index.html").read_text(encoding="utf-8")
    assert "stale" not in start.split('id="needs"')[1].split("</section>")[0]

    def with_drift(root: Path, config: Any, *, today: Any = None) -> Any:
        health = build_health(root, config, today=today)
        health.lines.append(
            Line(
                "drift",
                "stale against the code (last `memkit drift`)",
                ("deploy-with-argo (`argocd app rollback` is gone: renamed to `argocd rollback`)",),
                "memkit drift --propose writes the new values for review",
            )
        )
        return health

    monkeypatch.setattr(build, "build_health", with_drift)
    build.build_site(repo, out, load_config(repo), memory="repo")
    start = (out / "index.html").read_text(encoding="utf-8")
    needs = start.split('id="needs"', 1)[1].split("</section>", 1)[0]
    assert (
        '<a href="#health"><strong>1</strong> stale against the code (last <code>memkit '
        "drift</code>)</a>: <code>memkit drift --propose</code> writes the new values for "
        "review" in needs
    )
    health = start.split('id="health"', 1)[1].split("</section>", 1)[0]
    assert (
        '<a href="atoms/deploy-with-argo.html">deploy-with-argo</a> (<code>argocd app '
        "rollback</code> is gone: renamed to <code>argocd rollback</code>)" in health
    )
    assert "`" not in health


def test_a_fix_s_commands_are_code_and_its_words_are_words() -> None:
    """Health writes some fixes without backticks: only the commands in them are code."""
    from memkit.site.needs import fix_html

    said = {
        "memkit show ID; correct it or supersede it": "<code>memkit show ID</code>; correct it "
        "or supersede it",
        "memkit archive --suggest, then memkit archive --apply IDS": "<code>memkit archive "
        "--suggest</code>, then <code>memkit archive --apply IDS</code>",
        "memkit drift --propose writes the new values": "<code>memkit drift --propose</code> "
        "writes the new values",
        "memkit review list": "<code>memkit review list</code>",
        "fix or remove the file": "fix or remove the file",
        "then commit usage/<you>.json": "then commit usage/&lt;you&gt;.json",
        "add `supersedes: [OLD]`": "add <code>supersedes: [OLD]</code>",
    }
    assert {fix: fix_html(fix) for fix in said} == said


def test_a_day_reads_as_how_long_ago_and_a_later_one_as_its_date() -> None:
    import datetime as dt

    from memkit.site.start import _day

    today = dt.date(2026, 11, 29)
    assert ">yesterday</time>" in _day("2026-11-28", today)
    assert ">3 days ago</time>" in _day("2026-11-26", today)
    assert _day("2026-12-01", today) == '<time datetime="2026-12-01">2026-12-01</time>'


def test_the_time_axis_covers_the_memory_s_own_life() -> None:
    """By week up to thirteen weeks, by month beyond, never more than a year back: an ADR
    imported with its 2019 date does not stretch the axis."""
    import datetime as dt
    import itertools

    from memkit.site.plots import buckets, nice_top

    today = dt.date(2026, 11, 29)  # a Sunday
    weeks = buckets(dt.date(2026, 10, 1), today)
    assert weeks[0] == dt.date(2026, 9, 28) and weeks[-1] == dt.date(2026, 11, 23)
    assert {(b - a).days for a, b in itertools.pairwise(weeks)} == {7}
    months = buckets(dt.date(2026, 3, 10), today)
    assert months[0] == dt.date(2026, 3, 1) and months[-1] == dt.date(2026, 11, 1)
    assert buckets(dt.date(2019, 3, 14), today)[0] == dt.date(2025, 12, 1)
    assert buckets(dt.date(2027, 1, 1), today) == [dt.date(2026, 11, 23)]  # a date to come
    assert [nice_top(n) for n in (1, 5, 8, 37, 108)] == [
        (1, 1),
        (5, 1),
        (8, 2),
        (40, 10),
        (150, 50),
    ]
