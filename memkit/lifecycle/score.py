"""The two formulas of the lifecycle (docs/lifecycle.md).

- Laplace estimate of how often an atom holds when used: p = (s + 1) / (s + f + 2), s the
  sessions that confirmed it, f those that contradicted it; 0.5 when nothing is known, so a
  single session never makes an atom look certain (code-memory's feedback loop).
- Half-life decay of what has not been used: w = 0.5^(age / half_life), age in days since the
  last use (or since the atom was written, when it never was).
- Effectiveness = p x w.
"""

from __future__ import annotations

import datetime as dt


def laplace(confirmed: int, contradicted: int) -> float:
    return (confirmed + 1) / (confirmed + contradicted + 2)


def decay(age_days: float, half_life_days: float) -> float:
    return float(0.5 ** (max(0.0, age_days) / half_life_days))


def effectiveness(
    confirmed: int, contradicted: int, age_days: float, half_life_days: float
) -> float:
    return laplace(confirmed, contradicted) * decay(age_days, half_life_days)


def parse_day(value: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(value.strip()[:10])
    except ValueError:
        return None


def day_of(timestamp: float) -> dt.date:
    return dt.datetime.fromtimestamp(timestamp, tz=dt.UTC).date()
