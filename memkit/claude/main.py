"""`memkit-hook EVENT [--repo PATH ...]`: the entry point Claude Code runs.

Kept to the standard library until a handler needs more, and never through the full CLI
parser (which imports every command).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from memkit.claude.protocol import EVENT_NAMES, fail_open


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in EVENT_NAMES:
        print(f"usage: memkit-hook {{{','.join(EVENT_NAMES)}}} [--repo PATH ...]", file=sys.stderr)
        return 0  # even a wrong command line must not block Claude Code
    event, rest = args[0], args[1:]
    repos = [rest[i + 1] for i, a in enumerate(rest[:-1]) if a == "--repo"]

    def run(payload: dict[str, object]) -> dict[str, object] | None:
        from memkit.claude.handlers import HANDLERS  # noqa: PLC0415

        return HANDLERS[event](payload, repos)

    return fail_open(event, run)


if __name__ == "__main__":
    raise SystemExit(main())
