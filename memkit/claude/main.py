"""`memkit-hook EVENT [--repo PATH ...]`: the entry point Claude Code runs.

The fast path imports only the standard library: it hands the hook's JSON to the warm engine
of the memory repository over its Unix socket. When no engine answers, it starts one in the
background and answers this hook itself (BM25 and triggers, no model). Never through the full
CLI parser, which imports every command.
"""

from __future__ import annotations

# _signal, not signal: the wrapper module imports enum, ~9 ms on every hook (no stub either).
import _signal  # type: ignore[import-not-found]
import io
import os
import sys

from memkit.claude.events import EVENT_NAMES, MAX_STDIN

ENGINE_TIMEOUT = 1.5  # a busy or hung engine: answer in-process instead
DEADLINE = 5.0  # seconds for the whole hook; MEMKIT_HOOK_DEADLINE overrides
# Claude Code gives all SessionEnd hooks 1.5 s together, then kills them.
SHORT_DEADLINE = {"session-end": 1.2}
_LOG: list[str] = []  # where to note an expired deadline, once the repository is known


def _expired(_signum: int, _frame: object) -> None:
    """Past the deadline the hook leaves at once, printing nothing: Claude Code waits for
    its hooks, and no memory is better than a late prompt."""
    try:
        if _LOG:
            os.makedirs(os.path.dirname(_LOG[0]), exist_ok=True)  # noqa: PTH103, PTH120
            with open(_LOG[0], "a", encoding="utf-8") as fh:  # noqa: PTH123
                fh.write(f"{_LOG[1]}: deadline expired, answered nothing\n")
    finally:
        os._exit(0)


def _arm_deadline(event: str) -> float:
    default = SHORT_DEADLINE.get(event, DEADLINE)
    try:
        seconds = float(os.environ.get("MEMKIT_HOOK_DEADLINE") or default)
    except ValueError:
        seconds = default
    if seconds > 0:
        _signal.signal(_signal.SIGALRM, _expired)
        _signal.setitimer(_signal.ITIMER_REAL, seconds)
    return seconds


def _answer(text: str) -> int:
    # Disarmed first: the deadline must never cut an answer in half.
    _signal.setitimer(_signal.ITIMER_REAL, 0)
    sys.stdout.write(text)
    sys.stdout.flush()
    return 0


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
    deadline = _arm_deadline(event)
    repos = [rest[i + 1] for i, a in enumerate(rest[:-1]) if a == "--repo"]
    repos += [a[len("--repo=") :] for a in rest if a.startswith("--repo=")]
    try:
        raw = sys.stdin.read(MAX_STDIN + 1)
    except (OSError, UnicodeDecodeError):
        raw = ""
    root = _root(repos, os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd())  # noqa: PTH109
    if root is not None:
        _LOG[:] = [os.path.join(root, ".memkit", "logs", "hooks.log"), event]  # noqa: PTH118
    if root is not None and len(raw) <= MAX_STDIN:
        from memkit.claude.client import ask  # noqa: PLC0415

        try:
            # Half the deadline at most: a hung engine leaves time to answer in-process.
            wait = min(ENGINE_TIMEOUT, deadline / 2) if deadline > 0 else ENGINE_TIMEOUT
            answer = ask(root, event, raw, repos, wait)
        except OSError:
            _start_engine(root)
        else:
            return _answer(answer)

    from memkit.claude.protocol import fail_open  # noqa: PLC0415  (the path without an engine)

    def run(payload: dict[str, object]) -> dict[str, object] | None:
        from memkit.claude.handlers import HANDLERS  # noqa: PLC0415

        return HANDLERS[event](payload, repos)

    out = io.StringIO()
    fail_open(event, run, io.StringIO(raw), out)
    return _answer(out.getvalue())


if __name__ == "__main__":
    raise SystemExit(main())
