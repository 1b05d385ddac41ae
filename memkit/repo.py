"""Where a memory repository is and which of its files are atoms."""

from __future__ import annotations

import os
from pathlib import Path

from memkit.atom import SCOPE_DIRS, atom_paths
from memkit.config import CONFIG_NAME
from memkit.errors import MemkitError
from memkit.git import output
from memkit.ownership import refusal


def nearest_repo(start: Path) -> Path | None:
    """`start` or the nearest folder above it that holds memkit.yaml; None if none does."""
    for folder in (start, *start.parents):
        if (folder / CONFIG_NAME).is_file():
            return folder
    return None


def find_root(start: Path | None = None) -> Path:
    """The memory repository containing `start`: the nearest folder with memkit.yaml.

    A memory repo may live as a folder inside a code repo, so memkit.yaml wins over the git
    top level; without either, it is an error the user can fix with `memkit init`. One that
    another local user could have planted is refused (`trusted_root`).
    """
    here = (start or Path.cwd()).resolve()
    found = nearest_repo(here) or git_toplevel(here)
    if found is not None:
        return trusted_root(found)
    raise MemkitError(
        f"{here} is not inside a memory repository (no {CONFIG_NAME} found); "
        "run `memkit init PATH` to make one"
    )


def trusted_root(root: Path) -> Path:
    """`root`, when this user may trust it (`memkit.ownership`); else MemkitError saying why,
    as git refuses a repository of another user."""
    why = refusal(str(root))
    if why is not None:
        raise MemkitError(why)
    return root


def git_toplevel(path: Path) -> Path | None:
    top = output(path if path.is_dir() else path.parent, "rev-parse", "--show-toplevel")
    return Path(top) if top is not None else None


def relpath_in(root: Path, path: Path) -> str | None:
    """`path` relative to `root` as a posix string, or None when it lies outside.

    Symlinks are not followed here: a link inside the repo is judged by where it stands.
    """
    absolute = path if path.is_absolute() else Path.cwd() / path
    try:
        rel = Path(os.path.normpath(absolute)).relative_to(root)
    except ValueError:
        return None
    return rel.as_posix()


def list_atom_files(root: Path) -> list[str]:
    """Atom files in the working tree, tracked or not, sorted.

    Ignored files count too: personal atoms are gitignored by default, yet they are the
    user's own memory and must be validated and recalled on this machine.
    """
    found: list[str] = []
    # Plain strings, not Path objects: this walk runs on every index refresh (10k files).
    for top in SCOPE_DIRS:
        base = root / top
        if not base.is_dir():
            continue
        skip = len(os.fspath(base))
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            folder = top + dirpath[skip:].replace(os.sep, "/")
            found.extend(f"{folder}/{name}" for name in filenames)
    return sorted(atom_paths(found))
