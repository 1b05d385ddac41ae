"""The revisions of a pull request: its base, the merge base, its head. What it changes is
`memkit.changeset.changes_between`."""

from __future__ import annotations

from pathlib import Path

from memkit.changeset import Change
from memkit.git import text as git

__all__ = ["Change", "git", "head_commit", "merge_base", "resolve"]


def merge_base(root: Path, base: str, head: str) -> str:
    return git(root, "merge-base", base, head).strip()


def head_commit(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def resolve(root: Path, rev: str) -> str:
    return git(root, "rev-parse", "--verify", f"{rev}^{{commit}}").strip()
