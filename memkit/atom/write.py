"""Changing an atom file's frontmatter in place, as its author wrote it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from memkit.atom.read import FENCE
from memkit.atom.yaml import commented_map, round_trip_handler, ruamel_yaml
from memkit.files import write_atomic


def update_frontmatter(path: Path, changes: Mapping[str, object]) -> None:
    """Set frontmatter keys in place, keeping comments, key order, quoting and the body
    (ruamel's round trip: YAML 1.2 keeps `no`/`on` as strings).

    A value of None removes the key. The file is replaced atomically.
    """
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    end = next((i for i in range(1, len(lines)) if FENCE.match(lines[i])), None)
    if not lines or not FENCE.match(lines[0]) or end is None:
        raise ValueError(f"{path}: no frontmatter block to update")
    meta = ruamel_yaml().load("\n".join(lines[1:end]) + "\n")
    if not isinstance(meta, commented_map()):
        raise ValueError(f"{path}: frontmatter is not a mapping")
    for key, value in changes.items():
        if value is None:
            meta.pop(key, None)
        else:
            meta[key] = value
    dumped = round_trip_handler()().export(meta)
    new_text = "\n".join([lines[0], dumped, *lines[end:]])
    write_atomic(path, new_text)
