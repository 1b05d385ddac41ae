"""Claude Code integration: hook handlers that serve memory and never get in the way."""

from __future__ import annotations
