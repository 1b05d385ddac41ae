"""`lifecycle:` in memkit.yaml. The defaults are the seeds' numbers (docs/lifecycle.md):
confirmed in sessions of 2+ distinct days -> observed, 4+ days by 2+ people -> fixed (Atomic
Memory V4.1's cross-session consolidation, made to mean more than one person's afternoon);
effectiveness (s + 1) / (s + f + 2) x 0.5^(age / half-life) with a 90-day half-life and 0.3
as the line below which an atom is a candidate for the archive (code-memory).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memkit.atom import CONFIDENCES
from memkit.config import CONFIG_NAME, Config
from memkit.errors import MemkitError


@dataclass(frozen=True)
class PromoteSettings:
    observed_sessions: int = 2  # tentative -> observed: confirmed on this many distinct days
    fixed_sessions: int = 4  # -> fixed: on this many distinct days ...
    fixed_users: int = 2  # ... by this many distinct people
    min_laplace: float = 0.7  # (s + 1) / (s + f + 2): contradictions hold a promotion back


@dataclass(frozen=True)
class ArchiveSettings:
    half_life_days: float = 90.0
    below: float = 0.3  # effectiveness under this ...
    unused_days: int = 90  # ... and unused this long: suggested
    tiers: tuple[str, ...] = ("tentative", "observed")  # fixed atoms are archived by hand


@dataclass(frozen=True)
class LifecycleSettings:
    promote: PromoteSettings = PromoteSettings()
    archive: ArchiveSettings = ArchiveSettings()


def _number(
    section: Mapping[str, Any], key: str, default: float, where: str, *, whole: bool = False
) -> Any:
    value = section.get(key, default)
    ok = isinstance(value, int) if whole else isinstance(value, (int, float))
    if isinstance(value, bool) or not ok or value < 0:
        kind = "a whole number" if whole else "a number"
        raise MemkitError(f"{CONFIG_NAME}: `{where}.{key}` must be {kind} >= 0, got {value!r}")
    return value


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise MemkitError(f"{CONFIG_NAME}: `{where}` must be a mapping of settings")
    return value


def lifecycle_settings(config: Config) -> LifecycleSettings:
    section = _mapping(config.raw.get("lifecycle"), "lifecycle")
    promote = _mapping(section.get("promote"), "lifecycle.promote")
    archive = _mapping(section.get("archive"), "lifecycle.archive")
    p, a = PromoteSettings(), ArchiveSettings()
    tiers = archive.get("tiers", list(a.tiers))
    if not isinstance(tiers, list) or any(t not in CONFIDENCES for t in tiers):
        raise MemkitError(
            f"{CONFIG_NAME}: `lifecycle.archive.tiers` must be a list of "
            f"{', '.join(CONFIDENCES)}, got {tiers!r}"
        )
    half_life = _number(archive, "half_life_days", a.half_life_days, "lifecycle.archive")
    if half_life <= 0:
        raise MemkitError(f"{CONFIG_NAME}: `lifecycle.archive.half_life_days` must be > 0")
    return LifecycleSettings(
        PromoteSettings(
            observed_sessions=_number(
                promote, "observed_sessions", p.observed_sessions, "lifecycle.promote", whole=True
            ),
            fixed_sessions=_number(
                promote, "fixed_sessions", p.fixed_sessions, "lifecycle.promote", whole=True
            ),
            fixed_users=_number(
                promote, "fixed_users", p.fixed_users, "lifecycle.promote", whole=True
            ),
            min_laplace=float(_number(promote, "min_laplace", p.min_laplace, "lifecycle.promote")),
        ),
        ArchiveSettings(
            half_life_days=float(half_life),
            below=float(_number(archive, "below", a.below, "lifecycle.archive")),
            unused_days=_number(
                archive, "unused_days", a.unused_days, "lifecycle.archive", whole=True
            ),
            tiers=tuple(tiers),
        ),
    )
