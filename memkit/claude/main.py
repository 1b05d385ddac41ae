"""`memkit-hook EVENT [--repo PATH ...]`: the entry point Claude Code runs.

The fast path imports only the standard library: it hands the hook's JSON to the warm engine
of the memory repository over its Unix socket. When no engine answers, it starts one in the
background and answers this hook itself (BM25 and triggers, no model). Never through the full
CLI parser, which imports every command.
"""

from __future__ import annotations

import io
import os
import sys

from memkit.claude.events import EVENT_NAMES, MAX_STDIN

ENGINE_TIMEOUT = 3.0


def _root(repos: list[str], cwd: str) -> str | None:
    """The memory repository to ask: os.path only, to keep pathlib off the fast path."""
    for candidate in [*repos, cwd]:
        folder = os.path.abspath(os.path.expanduser(candidate))  # noqa: PTH100, PTH111
        while True:
            if os.path.isfile(os.path.join(folder, "memkit.yaml")):  # noqa: PTH113, PTH118
                return folder
            parent = os.path.dirname(folder)  # noqa: PTH120
            if parent == folder:
                break
            folder = parent
    return None


def _start_engine(root: str) -> None:
    if os.environ.get("MEMKIT_NO_ENGINE") == "1":
        return
    import subprocess  # noqa: PLC0415  (only when the engine must be started)

    subprocess.Popen(
        [sys.executable, "-m", "memkit", "serve", "--repo", root],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in EVENT_NAMES:
        print(f"usage: memkit-hook {{{','.join(EVENT_NAMES)}}} [--repo PATH ...]", file=sys.stderr)
        return 0  # even a wrong command line must not block Claude Code
    event, rest = args[0], args[1:]
    repos = [rest[i + 1] for i, a in enumerate(rest[:-1]) if a == "--repo"]
    try:
        raw = sys.stdin.read(MAX_STDIN + 1)
    except (OSError, UnicodeDecodeError):
        raw = ""
    root = _root(repos, os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd())  # noqa: PTH109
    if root is not None and len(raw) <= MAX_STDIN:
        from memkit.claude.client import ask  # noqa: PLC0415

        try:
            answer = ask(root, event, raw, repos, ENGINE_TIMEOUT)
        except OSError:
            _start_engine(root)
        else:
            sys.stdout.write(answer)
            sys.stdout.flush()
            return 0

    from memkit.claude.protocol import fail_open  # noqa: PLC0415  (the path without an engine)

    def run(payload: dict[str, object]) -> dict[str, object] | None:
        from memkit.claude.handlers import HANDLERS  # noqa: PLC0415

        return HANDLERS[event](payload, repos)

    return fail_open(event, run, io.StringIO(raw))


if __name__ == "__main__":
    raise SystemExit(main())
