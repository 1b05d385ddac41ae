"""A project's config files, read as flat settings: dotted key -> the values it holds.

YAML (libyaml's safe loader; every document of a file), TOML (tomllib), JSON, INI and
`setup.cfg` (configparser), `.env` and `.properties` (`KEY=value` lines), and a Dockerfile's
`ENV`/`ARG`. A list of `KEY=value` strings (docker compose's `environment:`) gives those keys
too. A file that does not parse holds no settings: its keys are not located, never guessed.
"""

from __future__ import annotations

import configparser
import json
import re
import tomllib
from collections.abc import Iterator
from typing import Any

from memkit.drift.claims import is_config_path

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"yaml"}

Settings = dict[str, list[str]]  # dotted key -> values (a key may be set more than once)
_ENV_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][\w.-]*)\s*[=:]\s*(.*?)\s*$")
_DOCKER_ENV = re.compile(r"^\s*(?:ENV|ARG)\s+(.*)$", re.I)


def scalar(value: object) -> str | None:
    """A value as memkit compares it: text, `true`/`false`, a number as written; None for
    what is not one value (a mapping, a list)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float, str)):
        return str(value)
    if hasattr(value, "isoformat"):
        return str(value.isoformat())
    return None


def _flatten(data: object, prefix: str, out: Settings) -> None:
    if isinstance(data, dict):
        for key, value in data.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            _flatten(value, name, out)
        return
    if isinstance(data, list):
        for item in data:
            if isinstance(item, str) and "=" in item and not item.startswith("="):
                key, _, value = item.partition("=")
                if re.fullmatch(r"[A-Za-z_][\w.-]*", key.strip()):
                    _flatten(
                        value.strip(), f"{prefix}.{key.strip()}" if prefix else key.strip(), out
                    )
            elif isinstance(item, (dict, list)):
                _flatten(item, prefix, out)
            elif prefix:
                value = scalar(item)
                if value is not None:
                    out.setdefault(prefix + "[]", []).append(value)
        return
    value = scalar(data)
    if value is not None and prefix:
        out.setdefault(prefix, []).append(value)


def _yaml_documents(text: str) -> Iterator[Any]:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    yield from yaml.load_all(text, Loader=loader)


def _lines(text: str, pattern: re.Pattern[str], out: Settings) -> None:
    for raw in text.splitlines():
        if raw.lstrip().startswith(("#", "!", ";")):
            continue
        found = pattern.match(raw)
        if found is not None:
            value = found.group(2).strip()
            if len(value) >= 2 and value[0] in "\"'" and value[-1] == value[0]:
                value = value[1:-1]
            out.setdefault(found.group(1), []).append(value)


def _docker(text: str, out: Settings) -> None:
    for raw in text.splitlines():
        found = _DOCKER_ENV.match(raw)
        if found is None:
            continue
        rest = found.group(1).strip()
        if "=" in rest:
            for pair in re.findall(r"""([A-Za-z_]\w*)=("[^"]*"|'[^']*'|\S*)""", rest):
                out.setdefault(pair[0], []).append(pair[1].strip("\"'"))
        else:
            key, _, value = rest.partition(" ")
            out.setdefault(key, []).append(value.strip())


def _ini(text: str, out: Settings) -> None:
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keep the keys' case
    parser.read_string(text)
    for section in parser.sections():
        for key, value in parser.items(section):
            out.setdefault(f"{section}.{key}", []).append((value or "").strip())


def read_settings(path: str, text: str) -> Settings:
    """The settings of the config file `path` holding `text`; {} when it does not parse."""
    name = path.rsplit("/", 1)[-1].lower()
    out: Settings = {}
    try:
        if name.endswith((".yaml", ".yml")):
            for document in _yaml_documents(text):
                _flatten(document, "", out)
        elif name.endswith(".toml"):
            _flatten(tomllib.loads(text), "", out)
        elif name.endswith((".json", ".jsonc", ".json5")) or name in (".babelrc", ".eslintrc"):
            _flatten(json.loads(text), "", out)
        elif name.endswith((".ini", ".cfg", ".conf")) or name in ("tox.ini", "setup.cfg"):
            _ini(text, out)
        elif name == "dockerfile" or name.endswith(".dockerfile") or name.startswith("dockerfile."):
            _docker(text, out)
        elif is_config_path(path):
            _lines(text, _ENV_LINE, out)
    except Exception:  # any parser's error: a file that does not parse holds nothing here
        return {}
    return out


def matching(settings: Settings, key: str, *, lists: bool = False) -> dict[str, list[str]]:
    """The settings whose dotted key is `key` or ends with `.key`, compared without case;
    `lists`: the list-valued ones (`python-version: [3.9, 3.10]`), else the others. A value
    that only points elsewhere (`${{ matrix.python-version }}`, `${PORT}`) is no value."""
    out: dict[str, list[str]] = {}
    low = key.lower()
    low_tail = "." + low
    for name, values in settings.items():
        if name.endswith("[]") != lists:
            continue
        bare = name.removesuffix("[]")
        if bare.lower() == low or bare.lower().endswith(low_tail):
            kept = [v for v in values if "${" not in v and "{{" not in v]
            if kept:
                out[bare] = kept
    return out
