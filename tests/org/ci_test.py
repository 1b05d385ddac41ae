"""The CI job templates that publish a memory repository into the org on every push to the
default branch (issue 46): their commands, run in a fresh clone as CI's runner has it, publish
the first time and only what a merged change brought the next; without a URI they refuse."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.helpers import atom_text, git, make_memory_repo, memkit, write_atom

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ("ci/github/memkit-org.yml", "ci/gitlab/memkit-org.gitlab-ci.yml")


def _commands(path: str) -> list[str]:
    """The shell commands a template runs after installing memkit."""
    data = YAML(typ="safe", pure=True).load((ROOT / path).read_text(encoding="utf-8"))
    if "jobs" in data:
        steps = data["jobs"]["publish"]["steps"]
        return [s["run"] for s in steps if "run" in s and "pip install" not in s["run"]]
    return [str(line) for line in data["memkit-org"]["script"]]


def _run(commands: list[str], clone: Path, uri: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "MEMKIT_ORG_URI": uri,
    }
    return subprocess.run(
        ["bash", "-e", "-c", "\n".join(commands)],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def _merged(origin: Path, atom_id: str, title: str) -> None:
    """An atom arrives on the default branch (a merged pull request)."""
    write_atom(origin, f"shared/{atom_id}.md", atom_text(atom_id, title=title))
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "--no-verify", "-m", title)


@pytest.mark.parametrize("path", WORKFLOWS)
def test_the_org_job_publishes_each_merge_to_the_default_branch(path: str, tmp_path: Path) -> None:
    text = (ROOT / path).read_text(encoding="utf-8")
    assert "default_branch" in text or "$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH" in text
    assert 'pip install "$MEMKIT_PACKAGE"' in text and "memkit[org]" in text
    assert "MEMKIT_ORG_TOKEN" in text  # from the CI's secrets, never from a committed file
    origin = make_memory_repo(tmp_path / "payments", hooks=False)
    _merged(origin, "refund-idempotency", "Refunds need an idempotency key")
    lite = str(tmp_path / "org.db")
    commands = _commands(path)
    # Without a URI the job refuses: a runner's own Lite file would be lost with the runner.
    refused = _run(commands, origin, "")
    assert refused.returncode != 0 and "MEMKIT_ORG_URI" in refused.stderr

    first = tmp_path / "ci-1"
    git(tmp_path, "clone", "-q", str(origin), str(first))
    ran = _run(commands, first, lite)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "payments: published" in ran.stdout and "1 written" in ran.stdout

    # A merge brings one more atom: the next run writes that one only.
    _merged(origin, "refund-timeout", "Refund calls time out after 30 s")
    second = tmp_path / "ci-2"
    git(tmp_path, "clone", "-q", str(origin), str(second))
    ran = _run(commands, second, lite)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "1 written, 0 removed, 1 unchanged" in ran.stdout
    status = memkit("org", "status", "--uri", lite, cwd=tmp_path)
    assert status.stdout.startswith("payments\t"), status.stdout
