"""`memkit.yaml`: read once into a frozen record; every setting has a default."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from memkit.errors import MemkitError
from memkit.userconfig import overlay

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"ruamel.yaml", "ruamel.yaml.error"}


CONFIG_NAME = "memkit.yaml"


@dataclass(frozen=True)
class Config:
    atom_lines: int = 200
    memory_md_lines: int = 30
    # Read no more than this from one file: a 5 MB paste is refused before it is parsed.
    atom_bytes: int = 262_144
    triggers: int = 20  # per atom (MK022): more is a list of keywords, not triggers
    embedding_model: str = "default"
    # Sections owned by later features (gate, roles, audit, ci) are kept raw for them.
    raw: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def section(self, name: str) -> Mapping[str, Any]:
        value = self.raw.get(name)
        return value if isinstance(value, Mapping) else MappingProxyType({})


def _positive_int(data: Mapping[str, Any], key: str, default: int, where: str) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise MemkitError(f"{where}: `{key}` must be a positive whole number, got {value!r}")
    return value


def parse_config(text: str, where: str = CONFIG_NAME) -> Config:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        data = YAML(typ="safe", pure=True).load(text)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise MemkitError(f"{where}{line}: invalid YAML: {problem}") from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise MemkitError(f"{where}: the top level must be a mapping of settings")
    limits = data.get("limits") or {}
    embedding = data.get("embedding") or {}
    if not isinstance(limits, dict) or not isinstance(embedding, dict):
        raise MemkitError(f"{where}: `limits` and `embedding` must be mappings")
    model = embedding.get("model", "default")
    if not isinstance(model, str) or not model.strip():
        raise MemkitError(f"{where}: `embedding.model` must be a model name or path")
    return Config(
        atom_lines=_positive_int(limits, "atom_lines", 200, where),
        memory_md_lines=_positive_int(limits, "memory_md_lines", 30, where),
        atom_bytes=_positive_int(limits, "atom_bytes", 262_144, where),
        triggers=_positive_int(limits, "triggers", 20, where),
        embedding_model=model.strip(),
        # Where credentials go and what runs: the user's own settings (memkit.userconfig).
        raw=MappingProxyType(overlay(data)),
    )


def load_config(root: Path) -> Config:
    path = root / CONFIG_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Config()
    except (OSError, UnicodeDecodeError) as exc:
        raise MemkitError(f"{path}: cannot read: {exc}") from exc
    return parse_config(text, str(path))
