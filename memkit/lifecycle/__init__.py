"""The lifecycle of atoms (docs/lifecycle.md): confidence earned by use, memory that ages,
and one report of what needs a person's attention.

- `settings`: the `lifecycle:` section of memkit.yaml, every number with the seeds' default;
- `catalog`: every atom's frontmatter, read fast and cached by file stamp;
- `team`: usage evidence merged from the local log and the exported `usage/<user>.json` files;
- `score`: Laplace estimate x half-life decay;
- `promote`, `archive`, `supersede`: proposals, applied to the working tree for a person to
  commit (never a silent change to shared memory);
- `evidence`: what the Claude Code hooks note as confirmation or contradiction;
- `health`: the report.
"""

from __future__ import annotations
