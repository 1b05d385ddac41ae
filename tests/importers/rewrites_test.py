"""Issue 38: a CLAUDE.md imported again after a commit changed it. The file says which line
changed: the changed line's atom replaces the old one (a value, other words, a detail),
whatever the words alone would be called, and is never refused as a copy of it; a line the
file still holds is never replaced; a line gone with nothing in its place is reported. Real
git, the real CLI, the real hooks and the real model, as a team re-importing after a pull."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import git, memkit
from tests.importers.sources_test import (
    ImportJSON,
    OutcomeJSON,
    outcomes,
    run_json,
    source_project,
)

V1 = """\
# CLAUDE.md

## Commands

- Run `make lint` before every commit; CI runs the same target.
- Run `pnpm test --filter api` before pushing changes to the API package.
- The dev server listens on port 3000 and reloads `src/` on save.

## Style

- Always use named exports in `src/components/`; default exports break the barrel files.
- Keep each React component in its own file, named after the component.
- Python code targets 3.10 and later; do not use features of 3.12.
"""
# A value changed, a sibling line added where a line was removed, a rewording, a version.
V2 = (
    V1.replace("`make lint`", "`make check`")
    .replace(
        "- The dev server listens on port 3000 and reloads `src/` on save.",
        "- Run `pnpm test --filter web` before pushing changes to the web package.",
    )
    .replace(
        "Keep each React component in its own file, named after the component.",
        "Every React component lives in a file of its own, which carries the component's name.",
    )
    .replace("targets 3.10", "targets 3.11")
)


def _by_line(report: ImportJSON) -> dict[int, OutcomeJSON]:
    return {int(o["source"].rsplit(":", 1)[1]): o for o in outcomes(report)}


def _supersedes(repo: Path, relpath: str) -> list[str]:
    head = (repo / relpath).read_text(encoding="utf-8").split("\n---\n", 1)[0]
    line = next((x for x in head.splitlines() if x.startswith("supersedes:")), "supersedes: []")
    found: list[str] = json.loads(line.split(":", 1)[1])
    return found


def _served(repo: Path, query: str) -> list[str]:
    result = memkit("search", query, "--json", cwd=repo)
    assert result.returncode == 0, result.stderr
    return [hit["id"] for hit in json.loads(result.stdout)["results"]]


def _first_import(memory_repo: Path, tmp_path: Path) -> tuple[Path, dict[int, str]]:
    project = source_project(tmp_path, {"CLAUDE.md": V1})
    first = _by_line(run_json(memory_repo, "claude-md", str(project)))
    assert all(o["action"] == "write" for o in first.values()), first
    git(memory_repo, "add", "-A")
    git(memory_repo, "commit", "-q", "-m", "import the app's CLAUDE.md")  # through the hooks
    return project, {line: o["id"] for line, o in first.items()}


def test_a_changed_line_replaces_its_atom_and_a_standing_line_stays(
    memory_repo: Path, tmp_path: Path
) -> None:
    project, ids = _first_import(memory_repo, tmp_path)
    (project / "CLAUDE.md").write_text(V2, encoding="utf-8")
    # What a person reads first, in a dry run: the fix for the line gone, and the counts.
    printed = memkit("import", "claude-md", str(project), "--dry-run", cwd=memory_repo).stdout
    assert f"no longer in its file: `{ids[7]}` (app/CLAUDE.md:7)" in printed, printed
    assert f"`memkit archive --apply {ids[7]}` retires it" in printed
    summary = printed.splitlines()[-1]
    assert "4 would be written, 3 replacing a line its file changed" in summary, summary
    assert "1 atom(s) no longer in their file" in summary, summary
    report = run_json(memory_repo, "claude-md", str(project))
    again = _by_line(report)

    for line in (5, 12, 13):  # make lint → make check; reworded; 3.10 → 3.11
        out = again[line]
        assert out["action"] == "write", out
        assert _supersedes(memory_repo, out["path"]) == [ids[line]], out
        assert f"replaces `{ids[line]}`: its line in app/CLAUDE.md changed" in out["notes"], out
    # The line beside `--filter api` is another package's: written, replacing nothing, and the
    # `--filter api` atom (still in the file) is untouched.
    beside = again[7]
    assert beside["action"] == "write" and "notes" not in beside, beside
    assert _supersedes(memory_repo, beside["path"]) == []
    assert again[6]["reason"] == "already-imported"
    # The dev server line is gone and nothing took its place: said, with the fix.
    assert report["no_longer_in_file"] == [{"id": ids[7], "source": "app/CLAUDE.md:7"}]
    assert report["replacing"] == 3

    git(memory_repo, "add", "-A")
    committed = git(memory_repo, "commit", "-q", "-m", "import again", check=False)
    assert committed.returncode == 0, committed.stdout + committed.stderr
    served = _served(memory_repo, "which make target before every commit")
    assert again[5]["id"] in served and ids[5] not in served, served
    # A third import writes nothing: every line of the file is in memory once.
    assert run_json(memory_repo, "claude-md", str(project))["written"] == 0

    # The printed fix works: the removed line's atom is retired and no longer reported.
    archived = memkit("archive", "--apply", ids[7], cwd=memory_repo)
    assert archived.returncode == 0, archived.stdout + archived.stderr
    assert run_json(memory_repo, "claude-md", str(project))["no_longer_in_file"] == []


DETAIL_V1 = "- `src/client/` — Browser-side runtime code (runs in iframe)\n"
DETAIL_V2 = (
    "- `src/client/` — Browser-side runtime code (top-level page in headless runs, iframe in "
    "headed runs)\n"
)


def test_an_update_the_words_call_a_copy_is_not_lost(memory_repo: Path, tmp_path: Path) -> None:
    """A real line of public history (heldout5) that the gate alone refuses as a duplicate of
    the old one (cosine 0.94): from its file, it is the old line rewritten."""
    project = source_project(tmp_path, {"AGENTS.md": "# Layout\n\n" + DETAIL_V1})
    (first,) = outcomes(run_json(memory_repo, "claude-md", str(project / "AGENTS.md")))
    git(memory_repo, "add", "-A")
    git(memory_repo, "commit", "-q", "-m", "import")
    (project / "AGENTS.md").write_text("# Layout\n\n" + DETAIL_V2, encoding="utf-8")
    (out,) = outcomes(run_json(memory_repo, "claude-md", str(project / "AGENTS.md")))
    assert out["action"] == "write", out
    assert _supersedes(memory_repo, out["path"]) == [first["id"]]


def test_a_member_re_importing_replaces_as_memkit_add_would(
    memory_repo: Path, tmp_path: Path
) -> None:
    """Bob is no management, his identity only in GIT_AUTHOR_*, his clone of the project on
    another path: a rule's replacement is written as `memkit add --supersedes` writes his (his
    name on it, the commit through the hooks passes); a reviewed decision's replacement waits
    for review, and the decision is served until it is approved."""
    decision = "- We decided to deploy with Argo CD; never push to the cluster by hand.\n"
    project, ids = _first_import(memory_repo, tmp_path)
    (project / "DECISIONS.md").write_text(decision, encoding="utf-8")
    (made,) = outcomes(
        run_json(memory_repo, "claude-md", str(project / "DECISIONS.md"), "--type", "decision")
    )
    git(memory_repo, "add", "-A")
    git(memory_repo, "commit", "-q", "-m", "the deploy decision")

    # Bob's own clone of the project, elsewhere on his machine, after a pull changed both.
    theirs = source_project(
        tmp_path / "bob", {"CLAUDE.md": V2, "DECISIONS.md": decision.replace("Argo CD", "Flux")}
    )
    assert theirs != project and theirs.name == project.name
    bob = {"GIT_AUTHOR_NAME": "Bob", "GIT_AUTHOR_EMAIL": "bob@example.com"}
    paths = [str(theirs / "CLAUDE.md"), str(theirs / "DECISIONS.md")]
    result = memkit("import", "claude-md", *paths, "--json", cwd=memory_repo, env=bob)
    assert result.returncode == 0, result.stderr
    found = {o["source"]: o for o in json.loads(result.stdout)["outcomes"]}
    rule, flux = found["app/CLAUDE.md:5"], found["app/DECISIONS.md:1"]
    assert rule["action"] == "write", rule
    assert _supersedes(memory_repo, rule["path"]) == [ids[5]]
    assert "\nauthor: bob@example.com\n" in (memory_repo / rule["path"]).read_text("utf-8")
    assert flux["action"] == "review" and str(flux["path"]).startswith("shared/_pending/"), flux
    assert f"replaces reviewed `{made['id']}`: sent to review" in flux["notes"]
    assert _supersedes(memory_repo, flux["path"]) == [made["id"]]
    git(memory_repo, "add", "-A")
    committed = git(
        memory_repo, "-c", "user.email=bob@example.com", "commit", "-q", "-m", "bob", check=False
    )
    assert committed.returncode == 0, committed.stdout + committed.stderr
    assert made["id"] in _served(memory_repo, "how do we deploy to the cluster")


def test_a_line_still_waiting_for_review_is_replaced_too(memory_repo: Path, tmp_path: Path) -> None:
    """Bob's first import of a decision waits for review; the file changes before anyone
    approves it: the new line replaces the waiting one (a reviewer sees the older version is
    superseded), not a second waiting atom beside it."""
    decision = "- We decided to deploy with Argo CD; never push to the cluster by hand.\n"
    project = source_project(tmp_path, {"DECISIONS.md": decision})
    bob = {"GIT_AUTHOR_NAME": "Bob", "GIT_AUTHOR_EMAIL": "bob@example.com"}
    args = ("import", "claude-md", str(project / "DECISIONS.md"), "--type", "decision", "--json")
    first = memkit(*args, cwd=memory_repo, env=bob)
    (waiting,) = json.loads(first.stdout)["outcomes"]
    assert waiting["action"] == "review", waiting
    git(memory_repo, "add", "-A")
    git(memory_repo, "commit", "-q", "-m", "bob's import")
    (project / "DECISIONS.md").write_text(decision.replace("Argo CD", "Flux"), encoding="utf-8")
    (out,) = json.loads(memkit(*args, cwd=memory_repo, env=bob).stdout)["outcomes"]
    assert out["action"] == "review", out
    assert _supersedes(memory_repo, out["path"]) == [waiting["id"]]
