"""What a refresh builds on: the live generation, when it can be trusted (sealed, intact,
built under the same memkit.yaml and model), read as little as possible (its header and its
parts' keys, never its atom table nor its vectors)."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memkit.index import store
from memkit.index.parts import Keys, Part, parts_of, read_keys

log = logging.getLogger(__name__)
BUILD_INFO = "build.json"  # in each generation: model, atom count, files left out


def verify_since_seal(gen: Path, seal: dict[str, Any], deep: bool) -> dict[str, str]:
    """Every checksum (`deep`: `memkit index` run by a person), or the sizes and the
    checksums of files written since the seal (git hooks and the engine, which checks
    every checksum itself when it opens a build)."""
    return store.verify(gen, deep=True if deep else "changed", seal=seal)


@dataclass(frozen=True)
class Previous:
    """The live generation a refresh builds on: its header, parts, seal and keys."""

    gen: Path
    header: dict[str, Any]
    parts: list[Part]
    seal: dict[str, Any]
    keys: Keys


def open_previous(root: Path, model: str, deep: bool, config: str) -> Previous | None:
    """The live generation to build on, when it can be trusted: sealed, every file intact
    (an incremental build links its tantivy files and parts, and would carry damage along),
    and built under the same memkit.yaml (what it admitted was judged by it). Only its
    header and keys are read (not its atom table nor its vectors)."""
    gen = store.current_generation(root)
    if gen is None:
        return None
    try:
        built_under = json.loads((gen / BUILD_INFO).read_text(encoding="utf-8")).get("config")
    except (OSError, ValueError, AttributeError):
        built_under = None
    if built_under != config:
        log.info(
            "memkit.yaml (or the Chinese fold table) changed since %s was built: every atom is "
            "checked again",
            gen,
        )
        return None
    seal = store.read_checksums(gen)
    if seal is None:
        log.info("index generation %s has no checksums (an older build); rebuilding", gen)
        return None
    problems = verify_since_seal(gen, seal, deep)
    if problems:
        log.warning(
            "index generation %s is damaged (%s); rebuilding from scratch",
            gen,
            store.describe(problems),
        )
        return None
    try:
        header = store.read_meta(gen)
        if header.get("model") != model:
            return None
        parts = parts_of(header)
        keys = read_keys(gen, parts)
    except store.OutdatedIndex:
        log.info("index generation %s was built by another memkit version; rebuilding", gen)
        return None
    except (OSError, ValueError, KeyError, TypeError):
        log.warning("index generation %s is unreadable; rebuilding from scratch", gen)
        return None
    return Previous(gen, header, parts, seal, keys)
