"""memkit as a pre-commit hook repository, and the memory template that uses its hooks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.helpers import atom_text, git, make_memory_repo, write_atom

ROOT = Path(__file__).resolve().parents[2]
CODE_PROJECT_HOOKS = {"memkit-drift"}


def load(path: Path) -> object:
    return YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))


def manifest() -> dict[str, dict[str, Any]]:
    """The hooks of .pre-commit-hooks.yaml by id (each a YAML mapping of any values)."""
    hooks = load(ROOT / ".pre-commit-hooks.yaml")
    assert isinstance(hooks, list)
    return {hook["id"]: hook for hook in hooks}


def test_manifest_is_valid_for_pre_commit() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-manifest", ".pre-commit-hooks.yaml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_hook_stages() -> None:
    hooks = manifest()
    # Validators must not run at post-* stages, which pass no files.
    assert hooks["memkit-validate"]["stages"] == ["pre-commit"]
    post = hooks["memkit-index"]
    assert post["always_run"] is True
    assert post["pass_filenames"] is False
    assert set(post["stages"]) == {"post-checkout", "post-merge", "post-rewrite"}


def test_template_config_matches_the_manifest() -> None:
    config = load(ROOT / "memory_template/pre-commit-config.yaml")
    assert isinstance(config, dict)
    assert config["default_install_hook_types"] == [
        "pre-commit",
        "post-checkout",
        "post-merge",
        "post-rewrite",
    ]
    local = {hook["id"]: hook for hook in config["repos"][0]["hooks"]}
    # memkit-drift runs in a code project (`memkit install drift` writes it there), not here.
    hooks = {k: v for k, v in manifest().items() if k not in CODE_PROJECT_HOOKS}
    assert local.keys() == hooks.keys()
    for hook_id, hook in hooks.items():
        for key in ("entry", "files", "types", "types_or", "stages", "always_run"):
            assert local[hook_id].get(key) == hook.get(key), (hook_id, key)
        assert local[hook_id].get("pass_filenames") == hook.get("pass_filenames"), hook_id


def test_every_hook_is_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for hook_id in manifest():
        assert f"`{hook_id}`" in readme


@pytest.mark.slow
def test_try_repo_runs_memkit_from_this_repository(tmp_path: Path) -> None:
    """pre-commit builds memkit from this checkout (uncommitted changes included)."""
    repo = make_memory_repo(tmp_path / "team", hooks=False)
    write_atom(repo, "shared/good.md", atom_text("good"))
    write_atom(repo, "shared/bad.md", "---\nid: bad\n---\n")

    def try_repo(
        *files: str, hook: str = "memkit-validate", env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), hook, "--files", *files],
            cwd=repo,
            capture_output=True,
            text=True,
            check=False,
            env=env,
        )

    # try-repo builds a new environment for each call (its store is a temporary folder):
    # ~15 s each, so one call reads every file the validate hook is asked about.
    (repo / "shared/p.md").symlink_to("/etc/passwd")
    found = try_repo("shared/good.md", "shared/bad.md", "shared/p.md")
    assert found.returncode == 1
    assert "shared/bad.md:2:1: MK005 missing required key `type`" in found.stdout
    # pre-commit's default `types: [file]` would skip a symlink: the manifest asks for them.
    assert "shared/p.md:1:1: MK019 symlink points outside the repository" in found.stdout
    assert "shared/good.md:" not in found.stdout, found.stdout
    # The roles hook judges the staged change, deletions included, whatever files it is given.
    git(repo, "rm", "--quiet", "shared/_roles.md")
    bob = {**os.environ, "GIT_AUTHOR_NAME": "Bob", "GIT_AUTHOR_EMAIL": "bob@example.com"}
    roles = try_repo("shared/good.md", hook="memkit-roles", env=bob)
    assert roles.returncode == 1, roles.stdout
    assert "shared/_roles.md:1:1: MK203 only management may change the role whitelist" in (
        roles.stdout
    )
