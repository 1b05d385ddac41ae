"""Which memory repository a command serves. The one named (`--repo`), or the one the folder is
in; in a code project wired to memory (`memkit install AGENT`), the one its agents' files
name, found as `memkit doctor` finds it: the agent tells the model to run `memkit search` or
`memkit show` there, and the answer must come from the team's memory, never from an empty one
made on the spot. Nothing is created in the code project; a folder that is neither says so.
"""

from __future__ import annotations

import os
from pathlib import Path

from memkit.config import CONFIG_NAME
from memkit.errors import MemkitError
from memkit.repo import find_root, nearest_repo, trusted_root

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.agents.wired", "memkit.wiring_checks"}


def _named(project: Path) -> list[tuple[str, Path]]:
    """(as written, where) for every repository the project's agent files name."""
    from memkit.agents.wired import named
    from memkit.wiring_checks import named_repos

    found = [(n.written, n.path) for n in named_repos(project)[0]]
    for repos in named(project).values():
        found += [(r, (project / r).resolve()) for r in repos]
    return found


def find_memory(repo: Path | None, start: Path | None = None) -> Path | None:
    """The repository a command serves (see the module), None when there is none; a named
    repository or one found above is refused as `find_root` refuses it."""
    here = (start or Path.cwd()).resolve()
    if repo is not None:
        return find_root(repo)
    if nearest_repo(here) is not None:
        return find_root(here)
    # Not in a memory repository: a code project, in its folder or below it.
    for folder in (here, *here.parents):
        named = _named(folder)
        if named:
            there = [path for _, path in named if (path / CONFIG_NAME).is_file()]
            if there:
                return trusted_root(there[0])
            written, path = named[0]
            raise MemkitError(
                f"{folder}'s agent files name the memory repository {written} ({path}), which "
                "does not exist here: clone it there, or pass --repo PATH"
            )
    for value in os.environ.get("MEMKIT_REPOS", "").split(os.pathsep):
        if value.strip() and (Path(value).expanduser() / CONFIG_NAME).is_file():
            return trusted_root(Path(value).expanduser().resolve())
    return None


def memory_root(repo: Path | None, start: Path | None = None) -> Path:
    """`find_memory`, or MemkitError saying this is no memory repository and how to name one."""
    found = find_memory(repo, start)
    if found is None:
        here = (start or Path.cwd()).resolve()
        raise MemkitError(
            f"{here} is not a memory repository (no {CONFIG_NAME} here or above), and no "
            "agent's files here name one: run this in your clone of the memory repository, "
            "pass --repo PATH, wire this project with `memkit install AGENT --repo PATH`, or "
            "run `memkit init PATH` to make one"
        )
    return found
