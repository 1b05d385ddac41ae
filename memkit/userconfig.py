"""Settings that are each user's alone: where their credentials go, what runs on their machine.

memkit.yaml is the team's: committed, reviewed as rules, the same in every clone. A reviewer
does not read it as code that runs on everyone's machine, yet a few settings are exactly
that: the URL an API key is sent to, the environment variable whose value is sent, the
program the judge runs, the provider that picks those. They are read from the user's own
configuration file, never from memkit.yaml:

    ~/.config/memkit/config.yaml        ($XDG_CONFIG_HOME/memkit/config.yaml)

    audit:
      judge:                  # the audit's optional judge (docs/audit.md)
        provider: openai
        url: https://llm.internal.example.com/v1
        api_key_env: LLM_KEY
    capture:
      model:                  # capture's optional L1/L2 model (docs/capture.md)
        provider: ollama
        url: http://127.0.0.1:11434

The file has memkit.yaml's layout. Its `audit.judge` and `capture.model` sections are laid
over the team's: every key there wins, and USER_ONLY keys count only from there (the team's
are dropped, with a warning naming the line to add). Without them the defaults apply: a
local Ollama at 127.0.0.1, no key sent, nothing run. The file is used only when it is the
user's own and nobody else can write to it. Standard library and PyYAML (libyaml): the
capture settings read it on the hook path.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"yaml"}


log = logging.getLogger(__name__)

# (section, subsection) -> keys read from the user's configuration only.
USER_ONLY: Mapping[tuple[str, str], tuple[str, ...]] = {
    ("audit", "judge"): ("provider", "url", "api_key_env", "command"),
    ("capture", "model"): ("provider", "url", "api_key_env", "command"),
}
DEFAULTS = {"provider": "ollama"}  # what a dropped value leaves in force anyway
_WARNED: set[str] = set()  # one warning per setting and process


def path() -> str:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(  # noqa: PTH118
        os.path.expanduser("~"),  # noqa: PTH111
        ".config",
    )
    return os.path.join(base, "memkit", "config.yaml")  # noqa: PTH118


def stamp() -> tuple[int, int, int]:
    """What changes when the user's file does (size, mtime, inode; zeros without one)."""
    try:
        st = os.stat(path())  # noqa: PTH116
    except OSError:
        return (0, 0, 0)
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def load() -> dict[str, Any]:
    """The user's settings; {} when there is no file, or one that is not theirs alone (said
    once in the log), or one that cannot be read."""
    where = path()
    try:
        st = os.stat(where)  # noqa: PTH116
    except OSError:
        return {}
    if st.st_uid != os.geteuid() or st.st_mode & 0o022:
        _warn_once(where, "%s is not yours alone (owner or mode): its settings are not used", where)
        return {}
    import yaml

    try:
        with open(where, encoding="utf-8") as fh:  # noqa: PTH123
            data = yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        _warn_once(where, "%s cannot be read (%s): its settings are not used", where, exc)
        return {}
    return data if isinstance(data, dict) else {}


def _warn_once(key: str, message: str, *args: object) -> None:
    if key not in _WARNED:
        _WARNED.add(key)
        log.warning(message, *args)


def overlay(team: Mapping[str, Any], user: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The team's settings (memkit.yaml) with the user's laid over the sections in
    USER_ONLY, and the team's values of USER_ONLY keys dropped. `user` defaults to `load()`."""
    user = load() if user is None else user
    out = dict(team)
    for (top, sub), keys in USER_ONLY.items():
        theirs = _mapping(_mapping(team.get(top)).get(sub))
        mine = _mapping(_mapping(user.get(top)).get(sub))
        if not theirs and not mine:
            continue
        merged = {k: v for k, v in theirs.items() if k not in keys}
        # Said when it matters: the feature on, a value other than what is used without it.
        on = (mine.get("enabled") if "enabled" in mine else theirs.get("enabled")) is True
        for key in keys:
            if (
                on
                and key in theirs
                and theirs[key] != DEFAULTS.get(key, "")
                and mine.get(key) != theirs[key]
            ):
                _warn_once(
                    f"{top}.{sub}.{key}={theirs[key]!r}",
                    "memkit.yaml sets %s.%s.%s: %r; it is not used: where your credentials "
                    "go and what runs on your machine are read only from your own settings "
                    "(%s). To use it, add there:\n%s:\n  %s:\n    %s: %s",
                    top,
                    sub,
                    key,
                    theirs[key],
                    path(),
                    top,
                    sub,
                    key,
                    theirs[key],
                )
        merged.update(mine)
        section = dict(_mapping(team.get(top)))
        section[sub] = merged
        out[top] = section
    return out


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
