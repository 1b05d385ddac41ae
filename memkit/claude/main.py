"""`memkit-hook EVENT [--repo PATH ...]`: the entry point Claude Code runs.

The fast path imports only the standard library: it hands the hook's JSON to the warm engine
of the memory repository over its Unix socket. When no engine answers, it starts one in the
background and answers this hook itself (BM25 and triggers, no model). Never through the full
CLI parser, which imports every command.

On a shared machine it trusts only the user's own repository and socket (`trust`), strips
`<private>` text before sending anything, and prints an engine's answer only once re-checked
and fenced (`fence`). It keeps its deadline, counted from the process start, under any load: a
stopped engine is not waited for, and few hooks answer in-process at once (`_take_slot`).
"""

from __future__ import annotations

# _signal, not signal: the wrapper module imports enum, ~9 ms on every hook (no stub either).
import _signal  # type: ignore[import-not-found]
import io
import os
import sys

from memkit.claude.events import EVENT_NAMES, HANDLER_OF, MAX_STDIN
from memkit.recall.trust import locate, private_folder

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {
    "fcntl",
    "memkit.agents.dialects",
    "importlib",
    "memkit.claude.protocol",
    "memkit.recall.client",
    "memkit.recall.fence",
    "memkit.recall.hooklog",
    "memkit.recall.readers",
    "memkit.safety.private",
    "subprocess",
    "time",
}


ENGINE_TIMEOUT = 1.5  # a busy or hung engine: answer in-process instead
DEADLINE = 5.0  # seconds for the whole hook; MEMKIT_HOOK_DEADLINE overrides
# Claude Code gives all SessionEnd hooks 1.5 s together, then kills them.
SHORT_DEADLINE = {"session-end": 1.2}
SLOTS = max(2, os.cpu_count() or 2)  # hooks of one repository answering in-process at once
_LOG: list[str] = []  # where to note an expired deadline, once the repository is known
# What the hook was doing, its deadline and session: said when the deadline expires.
_PHASE: list[str] = ["starting"]
_SEEN: dict[str, str] = {}


def _note(message: str) -> None:
    """One line in the repository's hooks.log (0600, in its 0700 .memkit/), when it is known."""
    if not _LOG:
        return
    try:
        folder = os.path.dirname(_LOG[0])  # noqa: PTH120
        os.makedirs(os.path.dirname(folder), mode=0o700, exist_ok=True)  # noqa: PTH103, PTH120
        os.makedirs(folder, mode=0o700, exist_ok=True)  # noqa: PTH103
        fd = os.open(_LOG[0], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with open(fd, "a", encoding="utf-8") as fh:  # noqa: PTH123
            fh.write(f"{_LOG[1]}: {message}\n")
    except OSError:
        pass


def _expired(_signum: int, _frame: object) -> None:
    """Past the deadline the hook leaves at once, printing nothing: Claude Code waits for
    its hooks, and no memory is better than a late prompt. But never silently: the session's
    next answer says memory was skipped and why (`memkit.claude.skipped`)."""
    try:
        reason = f"the {_SEEN.get('deadline', '?')} s deadline expired while {_PHASE[-1]}"
        _note(f"deadline expired ({reason}), answered nothing")
        _mark_skipped(reason)
    except BaseException:  # noqa: S110  (leaving is all that matters now)
        pass
    finally:
        os._exit(0)


def _mark_skipped(reason: str) -> None:
    """`.memkit/skipped/<session>` (read by the next answer) and a ledger line (read by
    `memkit doctor`); the format is `memkit.claude.skipped`'s. Standard library only."""
    if not _LOG:
        return
    import time

    folder = os.path.join(os.path.dirname(os.path.dirname(_LOG[0])), "skipped")  # noqa: PTH118, PTH120
    session = "".join(c if c.isalnum() or c in "_-" else "_" for c in _SEEN.get("session", ""))
    event = _LOG[1]
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)  # noqa: PTH103
        flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW
        name = os.path.join(folder, session[:100] or "unknown-session")  # noqa: PTH118
        fd = os.open(name, flags | os.O_TRUNC, 0o600)
        with open(fd, "w", encoding="utf-8") as fh:  # noqa: PTH123
            fh.write(f"{event}\t{reason}\t{time.time():.0f}\n")
        fd = os.open(os.path.join(folder, "ledger"), flags | os.O_APPEND, 0o600)  # noqa: PTH118
        with open(fd, "a", encoding="utf-8") as fh:  # noqa: PTH123
            fh.write(f"{time.time():.0f}\t{event}\t{reason}\n")
    except OSError:
        pass


def _session_of(raw: str) -> str:
    """The payload's session id, without parsing JSON (no json module on this path)."""
    at = raw.find('"session_id"')
    if at < 0:
        return ""
    start = raw.find('"', raw.find(":", at) + 1)
    end = raw.find('"', start + 1)
    return raw[start + 1 : end] if 0 <= start < end <= start + 200 else ""


def _since_exec() -> float:
    """Seconds since this process started (Linux), the interpreter's own start included: on a
    busy machine that alone can take a good part of the deadline."""
    try:
        with open("/proc/self/stat", encoding="ascii") as fh:  # noqa: PTH123
            ticks = int(fh.read().rpartition(")")[2].split()[19])  # field 22, starttime
        with open("/proc/uptime", encoding="ascii") as fh:  # noqa: PTH123
            uptime = float(fh.read().split()[0])
        return max(0.0, uptime - ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return 0.0


def _arm_deadline(event: str) -> float:
    """The time left until the hook's deadline, counted from its start, with the timer set."""
    default = SHORT_DEADLINE.get(event, DEADLINE)
    try:
        seconds = float(os.environ.get("MEMKIT_HOOK_DEADLINE") or default)
    except ValueError:
        seconds = default
    if seconds > 0:
        _SEEN["deadline"] = f"{seconds:g}"
        seconds = max(0.01, seconds - _since_exec())
        _signal.signal(_signal.SIGALRM, _expired)
        _signal.setitimer(_signal.ITIMER_REAL, seconds)
    return seconds


def _answer(text: str, agent: str = "", event: str = "") -> int:
    # Disarmed first: the deadline must never cut an answer in half.
    _signal.setitimer(_signal.ITIMER_REAL, 0)
    if agent:
        from memkit.agents.dialects import answer

        text = answer(agent, event, text)  # the agent's shape (`--agent`)
    sys.stdout.write(text)
    sys.stdout.flush()
    return 0


def _take_slot(root: str) -> int | None:
    """At most SLOTS hooks of a repository answer in-process at once; the others wait for a
    slot, asleep, until their deadline. Thirty hooks at once (a hung engine, many sessions)
    would otherwise share the cores thirty ways and all run past their deadlines.
    Returns the slot's file descriptor (released when the process exits)."""
    import fcntl

    folder = os.path.join(root, ".memkit")  # noqa: PTH118
    if not os.path.isdir(folder):  # noqa: PTH112
        return None
    fds = []
    _PHASE.append(f"waiting for one of {SLOTS} in-process slots (busy with other hooks)")
    try:
        for n in range(SLOTS):
            path = os.path.join(folder, f"hook-slot-{n}.lock")  # noqa: PTH118
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
            fds.append(fd)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue
            return fd
        fcntl.flock(fds[os.getpid() % SLOTS], fcntl.LOCK_EX)  # the deadline ends the wait
        return fds[os.getpid() % SLOTS]
    except OSError:
        return None  # a read-only .memkit/: answer without a slot


def _start_engine(root: str) -> None:
    import subprocess

    if not os.access(os.path.join(root, ".memkit"), os.W_OK):  # noqa: PTH118
        return  # read-only: it could hold neither its lock nor its socket
    subprocess.Popen(
        [sys.executable, "-m", "memkit", "serve", "--repo", root],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def _ask_engine(root: str, event: str, raw: str, repos: list[str], deadline: float) -> str | None:
    """The engine's answer, checked; None when the hook must answer by itself."""
    from memkit.recall.client import ask, engine_hung, mark_hung

    _PHASE.append("asking the warm engine")
    why = engine_hung(root)
    if why:
        if why == "stopped":  # found now (then marked: the next hooks say nothing)
            _note("the engine is stopped (SIGSTOP?); hooks answer in-process meanwhile")
        return None
    # Half the deadline at most: a hung engine leaves time to answer in-process.
    wait = min(ENGINE_TIMEOUT, deadline / 2) if deadline > 0 else ENGINE_TIMEOUT
    try:
        answer = ask(root, event, raw, repos, wait)
    except TimeoutError:
        mark_hung(root)  # the next hooks do not wait for it too
        _note("the engine did not answer in time; answered in-process")
        return None
    except OSError:
        _start_engine(root)
        return None
    from memkit.recall.fence import checked_answer

    checked = checked_answer(EVENT_NAMES[event], answer)
    if checked is None:
        _note("the engine's answer is not one memkit gives; answered in-process")
    return checked


def _flag(rest: list[str], name: str) -> list[str]:
    found = [rest[i + 1] for i, a in enumerate(rest[:-1]) if a == name]
    return found + [a[len(name) + 1 :] for a in rest if a.startswith(name + "=")]


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in EVENT_NAMES:
        print(
            f"usage: memkit-hook {{{','.join(EVENT_NAMES)}}} [--agent NAME] [--repo PATH ...]",
            file=sys.stderr,
        )
        return 0  # even a wrong command line must not block Claude Code
    event, rest = args[0], args[1:]
    said = event  # the event the agent's answer is for
    deadline = _arm_deadline(event)
    repos = _flag(rest, "--repo")
    agent = (_flag(rest, "--agent") or [""])[0]
    _PHASE.append("reading the hook's input")
    try:
        raw = sys.stdin.read(MAX_STDIN + 1)
    except (OSError, UnicodeDecodeError):
        raw = ""
    start = os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()  # noqa: PTH109
    if agent and len(raw) <= MAX_STDIN:
        # Another agent (docs/agents.md): its input as Claude Code's, its repositories taken
        # from its project's folder.
        from memkit.agents.dialects import translate

        event, raw, repos, start = translate(agent, event, raw, repos)
    # Repositories of this user's machine, from their own .claude/settings.local.json.
    repos += [p for p in os.environ.get("MEMKIT_REPOS", "").split(os.pathsep) if p.strip()]
    _SEEN["session"] = _session_of(raw[:4096])

    root, refused = locate(repos, start)
    if refused is not None:
        from memkit.recall.hooklog import log_line

        log_line(None, EVENT_NAMES[event], refused, mine=True)
    own = root is not None and private_folder(root)
    if root is not None and own:
        _LOG[:] = [os.path.join(root, ".memkit", "logs", "hooks.log"), event]  # noqa: PTH118
    if root is not None and len(raw) <= MAX_STDIN:
        lowered = raw.lower()  # JSON may spell `<` as \u003c
        if "<private" in lowered or "\\u003cprivate" in lowered:
            from memkit.safety.private import strip_payload

            raw = strip_payload(raw)  # before it goes anywhere, the engine included
        # MEMKIT_NO_ENGINE=1: neither ask a running engine nor start one.
        if own and os.environ.get("MEMKIT_NO_ENGINE") != "1":
            answer = _ask_engine(root, event, raw, repos, deadline)
            if answer is not None:
                return _answer(answer, agent, said)

    from memkit.claude.protocol import fail_open

    def run(payload: dict[str, object]) -> dict[str, object] | None:
        import importlib

        from memkit.recall.readers import Readers

        module, name = HANDLER_OF[event].split(":")
        result: dict[str, object] | None = getattr(importlib.import_module(module), name)(
            payload, repos, Readers(warm=False)
        )
        return result

    if root is not None and own:
        _take_slot(root)
    _PHASE.append("answering in-process (no warm engine answered)")
    out = io.StringIO()
    fail_open(event, run, io.StringIO(raw), out, log_to=root if own else None)
    return _answer(out.getvalue(), agent, said)


if __name__ == "__main__":
    raise SystemExit(main())
