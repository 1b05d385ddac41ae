"""One module per CLI verb; each exposes `add_parser(subparsers)` and sets `func`."""

from __future__ import annotations
