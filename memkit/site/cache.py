"""What the site learnt of each file, kept by its blob id for the next build in this clone.

Per blob: the admission codes of the file on its own, the atom record, the frontmatter the
record does not keep, the warnings review shows, the search terms and the body's HTML with
the atom links it resolved. All of it depends only on the file's bytes, the configuration
and this memkit (the cache's key); the body's links also on which atoms are shown, so they
are checked again before its HTML is reused. Derived and local (`.memkit/`, never
committed): a missing, damaged or older cache means reading the files again. JSON, not
pickle: loading it runs nothing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from memkit import __version__
from memkit.atom import Atom
from memkit.config import CONFIG_NAME
from memkit.files import memkit_dir, write_atomic

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"orjson"}


log = logging.getLogger(__name__)
CACHE = "site-cache.json"  # in .memkit/
FORMAT = 2  # 2: code spans may wrap (`memkit.site.html.code_text`)
_TUPLES = ("triggers", "paths", "tags", "related", "supersedes", "superseded_by")


@dataclass
class Entry:
    codes: list[str]
    atom: Atom | None = None
    more: tuple[tuple[str, str], ...] = ()
    warnings: tuple[str, ...] = ()
    weights: dict[str, int] | None = None
    body: str | None = None  # HTML of an atom page's body
    links: dict[str, bool] = field(default_factory=dict)  # atom id -> shown, as rendered


def cache_key(root: Path) -> str:
    try:
        config = (root / CONFIG_NAME).read_bytes()
    except OSError:
        config = b""
    return hashlib.sha1(f"{FORMAT} {__version__} ".encode() + config).hexdigest()  # noqa: S324


def atom_json(atom: Atom) -> dict[str, Any]:
    data = {f.name: getattr(atom, f.name) for f in dataclasses.fields(atom)}
    data.pop("sections")
    for key in _TUPLES:
        data[key] = list(data[key])
    data["key_lines"] = dict(atom.key_lines)
    data["extra"] = dict(atom.extra)
    return data


def atom_from_json(data: dict[str, Any]) -> Atom:
    values = dict(data)
    for key in _TUPLES:
        values[key] = tuple(values.get(key, ()))
    values["key_lines"] = MappingProxyType(dict(values.get("key_lines", {})))
    values["extra"] = MappingProxyType(dict(values.get("extra", {})))
    return Atom(**values)


def _entry_json(entry: Entry) -> dict[str, Any]:
    return {
        "codes": entry.codes,
        "atom": atom_json(entry.atom) if entry.atom is not None else None,
        "more": [list(kv) for kv in entry.more],
        "warnings": list(entry.warnings),
        "weights": entry.weights,
        "body": entry.body,
        "links": entry.links,
    }


def _entry(data: dict[str, Any]) -> Entry:
    atom = data.get("atom")
    return Entry(
        codes=list(data["codes"]),
        atom=atom_from_json(atom) if atom is not None else None,
        more=tuple((str(k), str(v)) for k, v in data.get("more", [])),
        warnings=tuple(data.get("warnings", [])),
        weights=data.get("weights"),
        body=data.get("body"),
        links=dict(data.get("links") or {}),
    )


def load(root: Path) -> dict[str, Entry]:
    """blob id -> what the last build learnt; {} when there is no usable cache."""
    import orjson

    path = root / ".memkit" / CACHE
    try:
        data = orjson.loads(path.read_bytes())
        if data.get("key") != cache_key(root):
            return {}
        return {blob: _entry(item) for blob, item in data["blobs"].items()}
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        log.info("site cache unreadable (%s); reading the files again", exc)
        return {}


def save(root: Path, entries: dict[str, Entry]) -> None:
    import orjson

    data = {
        "key": cache_key(root),
        "blobs": {blob: _entry_json(e) for blob, e in sorted(entries.items())},
    }
    try:
        write_atomic(memkit_dir(root) / CACHE, orjson.dumps(data), durable=False)
    except OSError as exc:  # a read-only clone still gets its site
        log.warning("could not keep the site cache: %s", exc)
