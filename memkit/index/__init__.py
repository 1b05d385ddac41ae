"""The derived, disposable search index under `<repo>/.memkit/index/`.

Reading (`open_index`) stays light: tantivy, numpy, tokenizers. Building (`refresh`) parses
atoms and is imported only when called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from memkit.index.build import BuildStats
    from memkit.index.search import MODES, Hit, IndexReader, IndexUnavailable, open_index

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.index.build", "memkit.index.search"}


_SEARCH = ("MODES", "Hit", "IndexReader", "IndexUnavailable", "open_index")


def refresh(
    root: Path,
    *,
    full: bool = False,
    quiet: bool = True,
    wait: bool = True,
    running: Any = None,
) -> BuildStats:
    from memkit.index.build import refresh as _refresh

    return _refresh(root, full=full, quiet=quiet, wait=wait, running=running)


__all__ = ["MODES", "Hit", "IndexReader", "IndexUnavailable", "open_index", "refresh"]


def __getattr__(name: str) -> Any:
    # The reading side on first use: `memkit index` finding nothing to do never needs it.
    if name in _SEARCH:
        from memkit.index import search

        return getattr(search, name)
    if name == "BuildStats":
        from memkit.index.build import BuildStats

        return BuildStats
    raise AttributeError(name)
