"""Where a memory repository is and which of its files are atoms."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from memkit.atom import SCOPE_DIRS, atom_paths
from memkit.config import CONFIG_NAME
from memkit.errors import MemkitError
from memkit.git import output
from memkit.ownership import folder_problem, refusal

log = logging.getLogger(__name__)


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


def served(root: Path, paths: list[str]) -> list[str]:
    """`paths` (sorted atom paths) without those in a folder deeper in the memory that is
    another user's or that others can write to (`memkit.ownership.folder_problem`: its atoms
    could be theirs); each such folder is said once in the log. The memory folders themselves
    (`shared/`, ...) are checked with the repository (`trusted_root`)."""
    verdicts: dict[str, bool] = {}

    def ok(folder: str) -> bool:
        """`folder`, and every folder between it and its memory folder, may be served."""
        if "/" not in folder:
            return True  # a memory folder: checked with the repository
        if folder not in verdicts:
            why = folder_problem(os.path.join(root, folder))  # noqa: PTH118
            if why:
                log.warning("%s %s; its atoms are left out", folder, why)
            verdicts[folder] = not why and ok(folder.rpartition("/")[0])
        return verdicts[folder]

    return [p for p in paths if "/" not in p or ok(p.rpartition("/")[0])]


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
    return served(root, sorted(atom_paths(found)))
