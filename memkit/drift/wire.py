"""`memkit install drift`: a code project checks the team's memory against itself.

Two files of the code project, both committed by the team:
- `.pre-commit-config.yaml` gets the hook `memkit-drift` (`memkit drift --hook`): each commit
  says which atoms it leaves stale, never fails, and keeps the verdicts in the memory clone
  for `memkit health`, the site and the agents' hooks (merged: every other hook kept);
- `.github/workflows/memkit-drift.yml` runs `memkit drift --base` on each pull request and
  annotates the files that make an atom stale (the memory repository is checked out beside
  the project; a private one needs a token, as the file says).
"""

from __future__ import annotations

import io
import re
from pathlib import Path

from memkit.errors import MemkitError
from memkit.files import write_atomic
from memkit.git import output

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"ruamel.yaml"}

WORKFLOW = ".github/workflows/memkit-drift.yml"
PRE_COMMIT = ".pre-commit-config.yaml"
HOOK_ID = "memkit-drift"
CHECKOUT = ".memkit-memory"  # where CI checks the memory repository out, inside the project
PLACEHOLDER = "OWNER/MEMORY-REPOSITORY"

WORKFLOW_TEXT = """\
# memkit drift: does this pull request leave the team's memory stale? (`memkit install drift`)
# A renamed file, a changed config value, a removed script or target, a bumped version that
# an atom names: each is annotated on the file the pull request changed, with the atom.
name: memkit drift

on:
  pull_request:

permissions:
  contents: read

env:
  # memkit from its git repository, pinned by tag. Not `pip install memkit`: that name on
  # PyPI belongs to an unrelated project.
  MEMKIT_PACKAGE: "memkit @ git+https://example.invalid/memkit.git@v0.1.0"  # memkit's git URL
  # The team's memory repository on GitHub.
  MEMORY_REPOSITORY: "{repository}"

jobs:
  drift:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          # The whole history: the pull request is compared with its base.
          fetch-depth: 0
          persist-credentials: false
      - uses: actions/checkout@v4
        with:
          repository: ${{{{ env.MEMORY_REPOSITORY }}}}
          path: {checkout}
          persist-credentials: false
          # A private memory repository: a token that may read it, e.g.
          # token: ${{{{ secrets.MEMORY_READ_TOKEN }}}}
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - name: Install memkit
        run: pip install "$MEMKIT_PACKAGE"
      - name: memkit drift
        # Exit 1 when the pull request leaves an atom stale: the check is red until the
        # memory is updated (`memkit drift --propose` in the memory repository) or the check
        # is not required. Append ` || true` to annotate without failing.
        run: >-
          memkit drift --repo {checkout} --project .
          --base "origin/${{{{ github.base_ref }}}}" --format github
"""


def github_repository(memory: Path) -> str | None:
    """`owner/name` of the memory repository's `origin` on GitHub, or None."""
    url = output(memory, "remote", "get-url", "origin") or ""
    found = re.search(r"github\.com[:/]([\w.-]+)/([\w.-]+?)(?:\.git)?/?$", url)
    return f"{found.group(1)}/{found.group(2)}" if found else None


def workflow_text(repository: str | None) -> str:
    return WORKFLOW_TEXT.format(repository=repository or PLACEHOLDER, checkout=CHECKOUT)


def hook_entry(relative: str | None) -> dict[str, object]:
    entry = "memkit drift --hook" + (f" --repo {relative}" if relative else "")
    return {
        "id": HOOK_ID,
        "name": "memkit drift",
        "entry": entry,
        "language": "unsupported",
        "always_run": True,
        "pass_filenames": False,
        "stages": ["pre-commit"],
        "verbose": True,
    }


def merge_pre_commit(text: str, entry: dict[str, object] | None) -> str:
    """`.pre-commit-config.yaml` with memkit's drift hook set (`entry`) or removed (None),
    its comments, order and every other hook kept."""
    from ruamel.yaml import YAML

    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.indent(mapping=2, sequence=4, offset=2)
    data = yaml.load(text) if text.strip() else None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise MemkitError(f"{PRE_COMMIT} is not a mapping of settings")
    repos = data.setdefault("repos", [])
    if not isinstance(repos, list):
        raise MemkitError(f"`repos` in {PRE_COMMIT} is not a list")
    for repo in list(repos):
        hooks = (
            repo.get("hooks") if isinstance(repo, dict) and repo.get("repo") == "local" else None
        )
        if isinstance(hooks, list):
            hooks[:] = [h for h in hooks if not (isinstance(h, dict) and h.get("id") == HOOK_ID)]
            if not hooks:
                repos.remove(repo)
    if entry is not None:
        local = next((r for r in repos if isinstance(r, dict) and r.get("repo") == "local"), None)
        if local is None:
            local = {"repo": "local", "hooks": []}
            repos.append(local)
        local["hooks"].append(entry)
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def wire(
    project: Path, relative: str | None, repository: str | None, *, uninstall: bool = False
) -> list[Path]:
    """Write (or take out) the hook and the workflow; returns the files changed."""
    config = project / PRE_COMMIT
    before = config.read_text(encoding="utf-8") if config.is_file() else ""
    after = merge_pre_commit(before, None if uninstall else hook_entry(relative))
    written: list[Path] = []
    if after != before:
        if uninstall and not after.strip().strip("{}").replace("repos: []", "").strip():
            config.unlink(missing_ok=True)
        else:
            write_atomic(config, after)
        written.append(config)
    workflow = project / WORKFLOW
    if uninstall:
        if workflow.is_file():
            workflow.unlink()
            written.append(workflow)
        return written
    text = workflow_text(repository)
    if not workflow.is_file() or workflow.read_text(encoding="utf-8") != text:
        write_atomic(workflow, text)
        written.append(workflow)
    return written
