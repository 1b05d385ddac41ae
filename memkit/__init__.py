"""memkit: a team's shared, reviewed, searchable memory for AI coding agents, kept in git."""

from __future__ import annotations

__version__ = "0.1.0.dev0"
