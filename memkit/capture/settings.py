"""Capture settings: the `capture:` section of memkit.yaml, and the router's thresholds.

```yaml
capture:
  enabled: true            # L0 on every prompt; the transcript at Stop, PreCompact, SessionEnd
  router:
    lower: 0.5             # below: dropped (counted); from here up: the local queue
    upper: 0.9             # at or above: written to personal/<you>/ when write_personal is on
    write_personal: false
  episodic:
    enabled: true          # a summary of each session in .memkit/episodic/, this clone only
    expires_days: 24
  blind_spots: false       # count, locally, the topics prompts ask about that no atom holds
  model:                   # optional L1 (yes/no) and L2 (structured) extraction; off by default
    enabled: false
    provider: ollama       # ollama | openai (any compatible endpoint) | anthropic
    model: qwen3:1.7b
    token_budget: 240      # per session, CJK-aware; past 220 only L1 runs
```

Hooks read this on every prompt, so it is parsed once per change of memkit.yaml and kept in
`.memkit/capture/settings.json` (keyed by the file's size, mtime and inode). Bad values fall
back to the defaults, never to an error in a hook. API keys are never stored: the model
section names an environment variable.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from memkit import userconfig
from memkit.capture.queue import capture_dir
from memkit.files import write_atomic

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"yaml"}


CACHE = "settings.json"
DROP, QUEUE, WRITE = "drop", "queue", "write"


@dataclass(frozen=True)
class CaptureSettings:
    enabled: bool = True
    lower: float = 0.5
    upper: float = 0.9
    write_personal: bool = False
    episodic: bool = True
    expires_days: int = 24
    # The raw `model` section when it is enabled (no key in it: the key is read from the
    # environment when the model is called).
    model: dict[str, Any] = field(default_factory=dict)
    token_budget: int = 240
    l1_only_above: int = 220
    # Opt-in: each clone counts the words of prompts that got no atom and that no atom holds,
    # one count per session, never the prompt (`memkit health`: the team's blind spots).
    blind_spots: bool = False

    def route(self, score: float) -> str:
        """Where a candidate of this score goes: dropped, the queue, or (only when
        `write_personal` is on) written to the user's own folder."""
        if score < self.lower:
            return DROP
        if score >= self.upper and self.write_personal:
            return WRITE
        return QUEUE


def _number(data: Mapping[str, Any], key: str, default: float, low: float, high: float) -> float:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        return default
    return float(value)


def _flag(data: Mapping[str, Any], key: str, default: bool) -> bool:
    value = data.get(key, default)
    return value if isinstance(value, bool) else default


def _section(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = data.get(key)
    return value if isinstance(value, Mapping) else {}


def parse(section: Mapping[str, Any]) -> CaptureSettings:
    """Settings from the `capture:` mapping; what is missing or wrong keeps its default."""
    router = _section(section, "router")
    episodic = _section(section, "episodic")
    model = _section(section, "model")
    lower = _number(router, "lower", 0.5, 0.0, 1.0)
    upper = max(lower, _number(router, "upper", 0.9, 0.0, 1.0))
    enabled_model = _flag(model, "enabled", False) and isinstance(model.get("model"), str)
    return CaptureSettings(
        enabled=_flag(section, "enabled", True),
        lower=lower,
        upper=upper,
        write_personal=_flag(router, "write_personal", False),
        episodic=_flag(episodic, "enabled", True),
        expires_days=int(_number(episodic, "expires_days", 24, 1, 3650)),
        model={str(k): v for k, v in model.items() if k != "api_key"} if enabled_model else {},
        token_budget=int(_number(model, "token_budget", 240, 0, 100_000)),
        l1_only_above=int(_number(model, "l1_only_above", 220, 0, 100_000)),
        blind_spots=_flag(section, "blind_spots", False),
    )


_MEMO: dict[Path, tuple[tuple[int, ...], CaptureSettings]] = {}


def load(root: Path) -> CaptureSettings:
    """The capture settings of the repository at `root`, from the cache when memkit.yaml has
    not changed since it was written."""
    try:
        st = (root / "memkit.yaml").stat()
        # The user's own settings count too (the model's provider and URL: memkit.userconfig).
        stamp = (st.st_size, st.st_mtime_ns, st.st_ino, *userconfig.stamp())
    except OSError:
        return CaptureSettings()
    memo = _MEMO.get(root)
    if memo is not None and memo[0] == stamp:
        return memo[1]
    cache = root / ".memkit" / "capture" / CACHE
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
        if tuple(data["stamp"]) == stamp:
            settings = CaptureSettings(**data["settings"])
            _MEMO[root] = (stamp, settings)
            return settings
    except (OSError, ValueError, KeyError, TypeError):
        pass  # no cache yet, or an old one
    settings = _parse_file(root)
    _MEMO[root] = (stamp, settings)
    try:
        text = json.dumps({"stamp": list(stamp), "settings": asdict(settings)})
        write_atomic(capture_dir(root) / CACHE, text, durable=False, mode=0o600)
    except OSError:
        pass  # a read-only .memkit/: parsed again next time
    return settings


def _parse_file(root: Path) -> CaptureSettings:
    """libyaml, not ruamel (memkit.config's parser): this runs in the hook process, where
    ruamel's pure-Python import alone would cost more than the whole prompt. Both read the
    plain mappings and scalars of this section alike."""
    import yaml

    try:
        text = (root / "memkit.yaml").read_text(encoding="utf-8")
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return CaptureSettings()  # a broken memkit.yaml is `memkit validate`'s to report
    section = userconfig.overlay(data).get("capture") if isinstance(data, dict) else None
    return parse(section if isinstance(section, Mapping) else {})
