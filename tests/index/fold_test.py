"""Chinese in either script finds the other (issue 43): `冒烟测试` (simplified) finds an atom
written `冒煙測試` (traditional), and the reverse, by words, by trigger, in the prompt hook and
in `memkit search`, with no `--all-results`; the table comes from OpenCC's data package."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import (
    atom_text,
    commit_and_index,
    context,
    make_memory_repo,
    memkit,
    run_hook,
    write_atom,
)


def test_the_table_is_opencc_s() -> None:
    from memkit.index.fold import package_table  # new in issue 43: its test alone needs it

    table = package_table()
    assert len(table) > 2_500  # OpenCC's TSCharacters, not a hand list
    assert "冒煙測試".translate(table) == "冒烟测试"
    assert "部署與發佈".translate(table) == "部署与发布"


def test_simplified_finds_traditional_and_the_reverse(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "team")
    write_atom(
        repo,
        "shared/smoke-tests.md",
        atom_text(
            "smoke-tests",
            title="冒煙測試在部署後執行",
            body="- 每次部署後先跑冒煙測試，再開放流量。MARK-SMOKE",
        ),
    )
    write_atom(
        repo,
        "shared/release-freeze.md",
        atom_text(
            "release-freeze",
            title="发布冻结",
            body="- 每季度末的最后一周冻结发布。MARK-FREEZE",
            extra="triggers: [发布冻结]\n",
        ),
    )
    commit_and_index(repo)
    for query, mark in (("冒烟测试", "smoke-tests"), ("發佈凍結", "release-freeze")):
        found = memkit("search", query, "--json", cwd=repo)
        assert found.returncode == 0, found.stderr
        ids = [r["id"] for r in json.loads(found.stdout)["results"]]
        assert ids[:1] == [mark], (query, ids)
    prompt = {"session_id": "s1", "prompt": "部署后冒烟测试要怎么跑？"}
    assert "MARK-SMOKE" in context(run_hook("user-prompt-submit", prompt, repo))
    prompt = {"session_id": "s2", "prompt": "發佈凍結是哪一週？"}
    text = context(run_hook("user-prompt-submit", prompt, repo))
    assert "MARK-FREEZE" in text and "trigger '发布冻结'" in text
