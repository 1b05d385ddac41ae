"""Text a reader must never be handed or a memory must never hold: secrets, prompt injection,
`<private>` blocks, lookalike characters. Imports nothing of memkit at run time: the atom
record, the findings, the gate, the checks and recall all stand on it."""

from __future__ import annotations
