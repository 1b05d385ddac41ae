"""The write gate: what may enter memory (quality, duplicates, secrets, prompt injection)."""

from __future__ import annotations
