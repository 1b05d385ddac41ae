"""Drift: atoms checked against the code they describe (docs/drift.md).

An atom names paths, config keys with a value, commands and pinned versions; a code project
says what holds now. `claims` reads what an atom states that a project could confirm,
`tree` is the project at one git tree (its files, their contents, what its history held),
`configs`, `scripts` and `versions` read the project's config files, command definitions and
manifests, and `check` holds one against the other: each claim gone, changed, confirmed or
not checkable, never a guess. `stored` keeps the last verdicts in the memory clone's
`.memkit/drift.json` for `memkit health`, the site and the hooks (standard library only: the
hooks read it); `propose` writes the new values into the atoms for a person to review;
`projects` remembers the code projects a clone was checked against.
"""

from __future__ import annotations
