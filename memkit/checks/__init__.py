"""Checks run by git hooks (through pre-commit) and by CI: one module per hook."""

from __future__ import annotations
