"""What is in the working tree now: atom path -> git blob sha.

Tracked files that match the git index take their sha from one `git ls-files -s`; files that
differ from it, untracked and ignored ones (personal atoms) are hashed the way git would, so
the keys are comparable. After `git merge --squash` HEAD does not move, but the working tree
does: hashing the working tree, not HEAD, follows it.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

from memkit.atom import SCOPE_DIRS
from memkit.files import NotRegular, read_regular
from memkit.repo import list_atom_files

NOT_A_FILE = "0" * 40  # the "blob" of a FIFO, socket or device named *.md


def blob_sha(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()  # noqa: S324  (git's id)


def _git(root: Path, *args: str) -> list[str] | None:
    try:
        out = subprocess.run(["git", *args], cwd=root, capture_output=True, check=False)
    except OSError:
        return None
    if out.returncode != 0:
        return None
    return [p for p in out.stdout.decode("utf-8", "surrogateescape").split("\0") if p]


def current_manifest(root: Path) -> dict[str, str]:
    paths = list_atom_files(root)
    tracked: dict[str, str] = {}
    dirty: set[str] = set()
    staged = _git(root, "ls-files", "-s", "-z", "--", *SCOPE_DIRS)
    if staged is not None:
        for entry in staged:
            meta, _, path = entry.partition("\t")
            tracked[path] = meta.split()[1]
        dirty = set(_git(root, "diff", "--name-only", "-z", "--", *SCOPE_DIRS) or [])
    manifest: dict[str, str] = {}
    for path in paths:
        sha = tracked.get(path)
        if sha is None or path in dirty:
            try:
                sha = blob_sha(read_regular(root / path))
            except NotRegular:
                sha = NOT_A_FILE  # never opened; the build refuses it with a finding (MK001)
            except OSError:
                continue
        manifest[path] = sha
    return manifest


DIGEST = "manifest.sha1"  # in each generation: the manifest it was built from


def digest(manifest: dict[str, str]) -> str:
    text = "\n".join(f"{path}\t{sha}" for path, sha in sorted(manifest.items()))
    return hashlib.sha1(text.encode("utf-8", "surrogateescape")).hexdigest()  # noqa: S324


def is_stale(root: Path) -> bool:
    """Whether the working tree's atoms differ from what the live generation was built from:
    one tree walk and two git commands (~0.07 s at 10,000 atoms), no parsing."""
    from memkit.index.store import current_generation  # noqa: PLC0415

    gen = current_generation(root)
    if gen is None:
        return True
    try:
        built_from = (gen / DIGEST).read_text(encoding="utf-8").strip()
    except OSError:
        return True
    return built_from != digest(current_manifest(root))
