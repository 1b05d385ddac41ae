"""`memkit ci`: every check of a local commit, plus what only CI can do, on a pull request."""

from __future__ import annotations
