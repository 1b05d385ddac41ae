"""Import, then export into the same project (issue 41, item 9): the agent gets each rule
once, and the export can be taken back."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import git, make_memory_repo, memkit

CLAUDE_MD = """# App

## Conventions

- Always run `pytest -x tests/payments` before every push to the payments service.
- Pin the postgres image to 16.2 in docker-compose.yml; never use `latest`.
"""
RULE = "Pin the postgres image to 16.2"


def test_rules_still_in_the_projects_claude_md_are_not_exported_again(tmp_path: Path) -> None:
    app = tmp_path / "app"
    app.mkdir()
    (app / "CLAUDE.md").write_text(CLAUDE_MD, encoding="utf-8")
    git(app, "init", "--quiet")
    repo = make_memory_repo(tmp_path / "team")
    assert memkit("import", "claude-md", str(app), cwd=repo).returncode == 0
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", "imported")

    done = memkit("export", "claude-rules", "--project", str(app), cwd=repo)
    assert done.returncode == 0, done.stderr
    assert "not exported: in-project 2" in done.stdout
    loaded = (app / "CLAUDE.md").read_text(encoding="utf-8")
    loaded += "".join(p.read_text(encoding="utf-8") for p in app.glob(".claude/rules/*.md"))
    assert loaded.count(RULE) == 1

    # Taken out of CLAUDE.md, the rule is memory's to give: exported.
    own = (app / "CLAUDE.md").read_text(encoding="utf-8")
    (app / "CLAUDE.md").write_text(
        "\n".join(line for line in own.split("\n") if RULE not in line), encoding="utf-8"
    )
    memkit("export", "claude-rules", "--project", str(app), cwd=repo)
    rules = "".join(p.read_text(encoding="utf-8") for p in app.glob(".claude/rules/*.md"))
    assert RULE in rules


def test_an_export_can_be_taken_back(tmp_path: Path) -> None:
    app = tmp_path / "app"
    app.mkdir()
    (app / "CLAUDE.md").write_text("# App\n\nOur own words.\n", encoding="utf-8")
    (app / ".claude/rules").mkdir(parents=True)
    (app / ".claude/rules/ours.md").write_text("- our rule\n", encoding="utf-8")
    git(app, "init", "--quiet")
    repo = make_memory_repo(tmp_path / "team")
    added = memkit(
        "add", "--type", "pitfall", "Never run migrations on Friday after 15:00 UTC.", cwd=repo
    )
    assert added.returncode == 0, added.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "--no-verify", "-m", "atom")
    assert memkit("export", "claude-rules", "--project", str(app), cwd=repo).returncode == 0
    assert list(app.glob(".claude/rules/memkit-*.md"))

    check = memkit("export", "claude-rules", "--project", str(app), "--remove", "--check", cwd=repo)
    assert check.returncode == 1 and list(app.glob(".claude/rules/memkit-*.md"))
    done = memkit("export", "claude-rules", "--project", str(app), "--remove", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert "export taken back" in done.stdout
    assert not list(app.glob(".claude/rules/memkit-*.md"))
    assert (app / ".claude/rules/ours.md").read_text(encoding="utf-8") == "- our rule\n"
    assert (app / "CLAUDE.md").read_text(encoding="utf-8") == "# App\n\nOur own words.\n"
    again = memkit("export", "claude-rules", "--project", str(app), "--remove", cwd=repo)
    assert "nothing of memkit's" in again.stdout
