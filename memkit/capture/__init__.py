"""Capture: memory that grows from the sessions themselves (DESIGN.md §10).

L0 rules on every prompt (`detect`), a transcript pass at Stop, PreCompact and SessionEnd
(`transcript`), an optional model for L1/L2 (`model`), a local per-user queue of candidates
(`queue`) that a person accepts through the path of `memkit add`, and an episodic summary of
each session for its author (`episodic`). Nothing here writes to shared memory by itself.

Standard library only at module level: the hook path imports this package.
"""

from __future__ import annotations
