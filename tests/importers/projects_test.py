"""Importing two code projects' CLAUDE.md into one team memory, as a team adopting memkit
does: what `claude /init` wrote at the top is not memory, each project's text stays that
project's (a teammate can tell `Deploys` of one from `Deploys` of the other), `@path` lines
are references, and a rule file linked to /etc/passwd is never read."""

from __future__ import annotations

from pathlib import Path

import pytest

from memkit.add import slugify
from memkit.atom.title import title_of
from tests.helpers import git, make_memory_repo, memkit
from tests.importers.sources_test import run_json

INIT_LINE = (
    "This file provides guidance to Claude Code (claude.ai/code) when working with code in "
    "this repository."
)
WEB = f"""\
# CLAUDE.md

{INIT_LINE}

## Commands

- Dev server: `pnpm dev` serves the app on localhost:3000 with hot reload of `src/`.
- Run `pnpm test --filter api` before pushing changes to the API package.

## Deploys

Production deploys run from the `main` branch through GitHub Actions; the workflow
`deploy.yml` pushes the image to ECR and updates the ECS service `web-prod`.

## Architecture

## Code style

- Always use named exports in `src/components/`; default exports break the barrel files.
@docs/architecture.md
"""
PAYMENTS = f"""\
# CLAUDE.md

{INIT_LINE}

## Deploys

Deploys go through `make release`, which tags the commit and lets Argo CD sync the
`payments` application in the prod cluster.
"""


def code_project(where: Path, name: str, files: dict[str, str]) -> Path:
    project = where / name
    project.mkdir(parents=True)
    git(project, "init", "-q")
    for rel, text in files.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text, encoding="utf-8")
    return project


def atoms_of(repo: Path) -> dict[str, str]:
    """The atoms an import wrote (they say where they came from)."""
    texts = {p.stem: p.read_text(encoding="utf-8") for p in (repo / "shared").glob("*.md")}
    return {name: text for name, text in texts.items() if '\nsource: "' in text}


def test_two_projects_give_atoms_a_teammate_can_tell_apart(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "memory")
    web = code_project(tmp_path, "web", {"CLAUDE.md": WEB})
    payments = code_project(tmp_path, "payments", {"CLAUDE.md": PAYMENTS})
    result = memkit("import", "claude-md", str(web), str(payments), cwd=repo)
    assert result.returncode == 0, result.stderr
    summary = result.stdout.splitlines()[-1]
    assert "skipped (boilerplate 2, headings-only 1)" in summary, result.stdout
    assert "refused (reference 1)" in summary, result.stdout

    atoms = atoms_of(repo)
    assert not any("provides guidance to Claude Code" in text for text in atoms.values())
    assert not any("@docs/architecture.md" in text for text in atoms.values())
    assert "refused: web/CLAUDE.md:20: reference only names another file" in result.stdout
    # The same heading in two projects: each atom names its project, in its title and id.
    assert "# Deploys (web)\n" in atoms["deploys-web"]
    assert "# Deploys (payments)\n" in atoms["deploys-payments"]
    assert '\nproject: "web"\n' in atoms["deploys-web"]
    assert '\nproject: "payments"\n' in atoms["deploys-payments"]
    assert all('\nproject: "' in text for text in atoms.values())
    named = atoms["always-use-named-exports-in-src-components"]
    assert named.rstrip().endswith("default exports break the barrel files.")
    # Through the real hooks, as the team commits it.
    git(repo, "add", "-A")
    committed = git(repo, "commit", "-m", "import", check=False)
    assert committed.returncode == 0, committed.stdout + committed.stderr

    # Exported into payments, web's atoms stay out, and so do payments' own while its
    # CLAUDE.md still says them (issue 41: the agent got each rule twice).
    exported = memkit("export", "claude-rules", "--project", str(payments), cwd=repo)
    assert exported.returncode == 0, exported.stderr
    assert "project 4" in exported.stdout and "in-project" in exported.stdout, exported.stdout
    assert not list((payments / ".claude/rules").glob("memkit-*.md"))
    # Once payments keeps its rules in memory alone, they come back; each heading once.
    (payments / "CLAUDE.md").write_text("# Payments\n", encoding="utf-8")
    exported = memkit("export", "claude-rules", "--project", str(payments), cwd=repo)
    assert "in-project" not in exported.stdout, exported.stdout
    rules = "".join(
        p.read_text(encoding="utf-8") for p in (payments / ".claude/rules").glob("memkit-*.md")
    )
    assert "## Deploys (payments)" in rules and "web-prod" not in rules
    headings = [line for line in rules.splitlines() if line.startswith("## ")]
    assert len(headings) == len(set(headings)), headings

    # Importing again writes nothing new; --no-project makes team-wide atoms.
    again = run_json(repo, "claude-md", str(web), str(payments))
    assert again["written"] == 0, [o for o in again["outcomes"] if o["action"] != "skip"]


def test_export_writes_a_heading_with_code_once(tmp_path: Path) -> None:
    repo = make_memory_repo(tmp_path / "memory")
    web = code_project(tmp_path, "web", {"CLAUDE.md": WEB})
    imported = memkit("import", "claude-md", str(web), "--no-project", cwd=repo)
    assert imported.returncode == 0, imported.stderr
    assert '\nproject: "' not in "".join(atoms_of(repo).values())
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "import")
    other = code_project(tmp_path, "other", {})
    assert memkit("export", "claude-rules", "--project", str(other), cwd=repo).returncode == 0
    text = (other / ".claude/rules/memkit-preference.md").read_text(encoding="utf-8")
    assert text.count("## Always use named exports in `src/components/`") == 1, text
    assert "## Always use named exports in src/components/" not in text


@pytest.mark.parametrize("link_name", [".cursor/rules/passwd.mdc", ".claude/rules/passwd.md"])
def test_import_never_follows_a_symbolic_link(tmp_path: Path, link_name: str) -> None:
    repo = make_memory_repo(tmp_path / "memory", hooks=False)
    secret = tmp_path / "outside.md"
    secret.write_text("- root:x:0:0:root:/root:/bin/bash is the first account line.\n")
    project = code_project(tmp_path, "app", {"CLAUDE.md": "- Run `make lint` before a push.\n"})
    link = project / link_name
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(secret)
    (link.parent / "linked-folder").symlink_to(tmp_path)
    fmt = "cursor-rules" if link_name.startswith(".cursor") else "claude-md"
    report = run_json(repo, fmt, str(project))
    skipped = {u["source"]: u["reason"] for u in report["unimported"]}
    assert skipped[f"app/{link_name}"] == "symlink", report
    assert skipped[f"app/{link_name.rsplit('/', 1)[0]}/linked-folder"] == "symlink", report
    # Named on the command line, a link is not read either.
    named = run_json(repo, fmt, str(link))
    assert [u["reason"] for u in named["unimported"]] == ["symlink"], named
    every = "".join(p.read_text(encoding="utf-8") for p in repo.rglob("*.md"))
    assert "root:x:0:0" not in every
    printed = memkit("import", fmt, str(project), "--dry-run", cwd=repo).stdout
    assert f"not imported: app/{link_name}: is a symbolic link" in printed


@pytest.mark.parametrize(
    ("text", "atom_id"),
    [
        (
            "We moved deploys from helm to Argo CD: production deploys are Argo CD "
            "applications synced from the deploy/ folder.",
            "we-moved-deploys-from-helm-to-argo-cd",
        ),
        (
            "Run `pnpm test --filter api` before pushing changes to the API package.",
            "run-pnpm-test-filter-api-before-pushing-changes",
        ),
        (
            "Secrets of the payments service are rotated by the platform team, never by hand.",
            "secrets-of-the-payments-service-are-rotated",
        ),
        (
            "Always pin the PostgreSQL client library to version 16.2 because older releases "
            "break the connection pool in production.",
            "always-pin-the-postgresql-client-library-to-version-16-2",
        ),
    ],
)
def test_a_generated_id_ends_where_a_phrase_does(text: str, atom_id: str) -> None:
    assert slugify(title_of(text)) == atom_id


def test_a_title_does_not_end_inside_inline_code() -> None:
    assert title_of("Run `go test ./... -race` before every push. CI rejects races.") == (
        "Run `go test ./... -race` before every push"
    )
