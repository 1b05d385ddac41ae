"""Where the index lives and how generations are published.

`.memkit/index/CURRENT` names the live generation folder (`gen-000042/`: tantivy files,
vectors, meta.json). A build writes a new generation and then replaces CURRENT with an atomic
rename, so a reader sees either the old generation or the new one, never half of one. One
writer at a time holds `.memkit/index/write.lock` (flock); readers take no lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memkit.files import write_atomic

FORMAT = 1
KEEP_OLD = 2  # previous generations kept for readers that still have them open


def index_dir(root: Path) -> Path:
    return root / ".memkit" / "index"


def current_generation(root: Path) -> Path | None:
    base = index_dir(root)
    try:
        name = (base / "CURRENT").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    gen = base / name
    return gen if name.startswith("gen-") and (gen / "meta.json").is_file() else None


def read_meta(gen: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((gen / "meta.json").read_text(encoding="utf-8"))
    if data.get("format") != FORMAT:
        raise ValueError(f"{gen}: index format {data.get('format')}, expected {FORMAT}")
    return data


def write_json_atomic(path: Path, data: Any) -> None:
    # dumps, not dump: json.dump streams through the pure-Python encoder (~5x slower).
    write_text_atomic(path, json.dumps(data, ensure_ascii=False))


def write_text_atomic(path: Path, text: str) -> None:
    write_atomic(path, text, durable=False)  # derived: rebuilt if a crash loses it


def new_generation(root: Path) -> Path:
    base = index_dir(root)
    base.mkdir(parents=True, exist_ok=True)
    numbers = [int(p.name[4:]) for p in base.glob("gen-*") if p.name[4:].isdigit()]
    gen = base / f"gen-{max(numbers, default=0) + 1:06d}"
    gen.mkdir()
    return gen


def publish(root: Path, gen: Path) -> None:
    base = index_dir(root)
    # Durable: after a crash CURRENT must name a generation whose files made it to disk.
    write_atomic(base / "CURRENT", gen.name + "\n")
    old = sorted((p for p in base.glob("gen-*") if p != gen), key=lambda p: p.name)
    for stale in old[:-KEEP_OLD] if len(old) > KEEP_OLD else []:
        shutil.rmtree(stale, ignore_errors=True)


def discard(gen: Path) -> None:
    shutil.rmtree(gen, ignore_errors=True)


@contextlib.contextmanager
def write_lock(root: Path) -> Iterator[None]:
    """One writer at a time; a second `memkit index` waits for the first to finish."""
    base = index_dir(root)
    base.mkdir(parents=True, exist_ok=True)
    with (base / "write.lock").open("a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
