"""The site's stale page tells "never checked" from "checked: none stale" (issue 44): a clone
that never ran `memkit drift` is not told its memory agrees with the code."""

from __future__ import annotations

from pathlib import Path

from tests.drift.project import code_project, write_atoms
from tests.helpers import commit_and_index, make_memory_repo, memkit


def test_the_stale_page_says_never_checked_then_none(tmp_path: Path) -> None:
    memory = make_memory_repo(tmp_path / "team-memory")
    write_atoms(memory)
    commit_and_index(memory)
    code_project(tmp_path / "app")
    out = tmp_path / "site"

    built = memkit("site", "--out", str(out), cwd=memory)
    assert built.returncode == 0, built.stderr
    page = (out / "stale.html").read_text(encoding="utf-8")
    assert "Not checked against a code project in this clone yet" in page
    assert "<code>memkit drift --project DIR</code>" in page
    assert "None." not in page

    checked = memkit("drift", "--project", "../app", cwd=memory)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    built = memkit("site", "--out", str(out), cwd=memory)
    assert built.returncode == 0, built.stderr
    page = (out / "stale.html").read_text(encoding="utf-8")
    assert "Stale against the code (0)" in page and "None." in page
    assert "Not checked" not in page
    assert "may be stale" not in (out / "atoms/worker-retries.html").read_text(encoding="utf-8")
