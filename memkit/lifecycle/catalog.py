"""Every atom's frontmatter, fast: what the lifecycle commands need at 10,000 atoms.

Only the frontmatter is read (`memkit.atom.plain.read_meta`: every value a string),
never the body; each file's fields are cached in `.memkit/lifecycle-catalog.json` by its
modification time and size, so a second run stats the files and reads none. The cache is
derived: a missing or unreadable one means reading the files again.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memkit.atom import CONFIDENCE_ALIASES, scope_from_path
from memkit.atom.plain import read_meta
from memkit.files import write_atomic
from memkit.index.store import current_generation
from memkit.index.store import read_meta as read_generation
from memkit.repo import list_atom_files
from memkit.safety.secrets import redact_secrets

log = logging.getLogger(__name__)
CACHE = ".memkit/lifecycle-catalog.json"
CACHE_FORMAT = 1
_SCALARS = ("id", "type", "confidence", "status", "created", "updated", "expires", "author")
_LISTS = ("supersedes", "superseded_by", "related")


@dataclass(frozen=True)
class Entry:
    path: str
    id: str
    type: str
    confidence: str  # tentative | observed | fixed (aliases resolved); else as written
    confidence_raw: str  # as written: 臨 stays 臨, so a promotion can answer in kind
    status: str
    scope: str
    pending: bool
    created: str
    updated: str
    expires: str
    author: str
    supersedes: tuple[str, ...]
    superseded_by: tuple[str, ...]

    @property
    def shown(self) -> tuple[str, str]:
        """(id, path) as they may be printed: a file named after a token must not print it."""
        return redact_secrets(self.id), redact_secrets(self.path)

    @property
    def is_live(self) -> bool:
        """Served by recall: active, reviewed, not in the archive."""
        return self.status == "active" and not self.pending and self.scope != "archive"


def _frontmatter(path: str | Path) -> dict[str, Any] | None:
    """The fields the lifecycle needs; None when the frontmatter cannot be read."""
    meta = read_meta(path)
    if meta is None:
        return None
    fields: dict[str, Any] = {}
    for key in _SCALARS:
        value = meta.get(key)
        fields[key] = value.strip() if isinstance(value, str) else ""
    for key in _LISTS:
        value = meta.get(key)
        items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        fields[key] = [str(v).strip() for v in items if isinstance(v, str) and v.strip()]
    return fields


def _entry(relpath: str, fields: dict[str, Any]) -> Entry | None:
    place = scope_from_path(relpath)
    if place is None:
        return None
    scope, pending = place
    raw = fields.get("confidence", "")
    return Entry(
        path=relpath,
        id=fields.get("id") or Path(relpath).stem,
        type=fields.get("type", ""),
        confidence=CONFIDENCE_ALIASES.get(raw, raw),
        confidence_raw=raw,
        status=fields.get("status") or "active",
        scope=scope,
        pending=pending,
        created=fields.get("created", ""),
        updated=fields.get("updated", ""),
        expires=fields.get("expires", ""),
        author=fields.get("author", ""),
        supersedes=tuple(fields.get("supersedes", ())),
        superseded_by=tuple(fields.get("superseded_by", ())),
    )


def _load_cache(root: Path) -> dict[str, Any]:
    try:
        data = json.loads((root / CACHE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT:
        return {}
    files = data.get("files")
    return files if isinstance(files, dict) else {}


def read_catalog(root: Path) -> tuple[list[Entry], list[str]]:
    """The atoms of the working tree (sorted by path), and the atom files whose frontmatter
    cannot be read at all."""
    cached = _load_cache(root)
    fresh: dict[str, Any] = {}
    entries: list[Entry] = []
    unreadable: list[str] = []
    missed = 0
    base = os.fspath(root)
    for relpath in list_atom_files(root):
        path = os.path.join(base, relpath)  # noqa: PTH118  (10,000 of them: plain strings)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        stamp = [st.st_mtime_ns, st.st_size]
        hit = cached.get(relpath)
        if isinstance(hit, list) and len(hit) == 2 and hit[0] == stamp:
            fields = hit[1]
        else:
            missed += 1
            fields = _frontmatter(path)
        fresh[relpath] = [stamp, fields]
        entry = _entry(relpath, fields) if isinstance(fields, dict) else None
        if entry is None:
            unreadable.append(relpath)
        else:
            entries.append(entry)
    if missed or len(fresh) != len(cached):
        _save_cache(root, fresh)
    return entries, unreadable


def _save_cache(root: Path, files: dict[str, Any]) -> None:
    if not (root / ".memkit").is_dir():
        return  # no local state yet: `memkit index` or a hook makes it
    try:
        text = json.dumps({"format": CACHE_FORMAT, "files": files}, ensure_ascii=False)
        write_atomic(root / CACHE, text, durable=False, mode=0o600)
    except OSError as exc:  # a read-only or full .memkit/: read the files next time too
        log.info("the lifecycle catalog cache was not written (%s)", exc)


def refused_by_index(root: Path) -> list[str] | None:
    """The atom files the current index left out because validation refuses them (sorted);
    None when there is no readable index."""
    gen = current_generation(root)
    if gen is None:
        return None
    try:
        return sorted(read_generation(gen).get("skipped") or ())
    except (OSError, ValueError, KeyError):
        return None


def usable_entries(root: Path) -> list[Entry]:
    """The atoms the lifecycle commands consider: readable, and not refused by validation."""
    entries, _unreadable = read_catalog(root)
    refused = set(refused_by_index(root) or ())
    return [e for e in entries if e.path not in refused]
