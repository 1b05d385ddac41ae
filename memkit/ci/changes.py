"""What a pull request changes: files between the merge base and the head."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from memkit.errors import MemkitError


@dataclass(frozen=True)
class Change:
    status: str  # A, M, D, R (git's letters)
    path: str
    old_path: str = ""


def git(root: Path, *args: str) -> str:
    result = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise MemkitError(f"git {' '.join(args)} failed: {result.stderr.strip()}")
    return result.stdout


def merge_base(root: Path, base: str, head: str) -> str:
    return git(root, "merge-base", base, head).strip()


def changes(root: Path, base: str, head: str) -> list[Change]:
    out = git(root, "diff", "--name-status", "-z", "--find-renames", f"{base}...{head}", "--")
    fields = [f for f in out.split("\0") if f]
    result: list[Change] = []
    i = 0
    while i < len(fields):
        status = fields[i][0]
        if status in "RC":
            result.append(Change(status, fields[i + 2], fields[i + 1]))
            i += 3
        else:
            result.append(Change(status, fields[i + 1]))
            i += 2
    return result


def head_commit(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def resolve(root: Path, rev: str) -> str:
    return git(root, "rev-parse", "--verify", f"{rev}^{{commit}}").strip()
