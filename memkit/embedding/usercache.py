"""Where converted models are kept: one folder per user, shared by every clone on the machine.

A converted model is ~70 MB and takes ~0.4 s to make; kept in each repository's `.memkit/`
it was made again by every clone's first build and stored once per clone. The folder is
`MEMKIT_MODEL_CACHE` when set, else `$XDG_CACHE_HOME/memkit/models`, else
`~/.cache/memkit/models`. Entries are named by a hash of the model's files
(`memkit.embedding.cache`), so clones whose model folders sit at different paths share one
entry. When that folder cannot be written (a read-only home, a sandbox), the repository's
`.memkit/models` is used, as before.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV = "MEMKIT_MODEL_CACHE"


def user_model_cache() -> Path:
    """The per-user folder of converted models (it may not exist yet)."""
    explicit = os.environ.get(ENV, "").strip()
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg).expanduser() if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return base / "memkit" / "models"


def _writable(folder: Path) -> bool:
    """Whether `folder` can be written, or created under its nearest existing parent."""
    probe = folder
    while not probe.exists():
        if probe.parent == probe:
            return False
        probe = probe.parent
    return probe.is_dir() and os.access(probe, os.W_OK | os.X_OK)


def model_cache_dir(root: Path | None = None) -> Path | None:
    """The folder to keep converted models in: the per-user one when it can be written, else
    `<root>/.memkit/models` (None without a root: the model is then converted in memory)."""
    try:
        shared = user_model_cache()
    except RuntimeError:  # no home directory to be found
        shared = None
    if shared is not None and _writable(shared):
        return shared
    return root / ".memkit" / "models" if root is not None else None
