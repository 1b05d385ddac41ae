"""Reading Claude Code's transcript (`transcript_path`, JSON lines) where the last hook left off.

Each Stop, PreCompact and SessionEnd reads only what was appended since (the byte offset is in
the session's state), complete lines only, and stops at its deadline or after MAX_BYTES: the
next hook goes on from there. From the lines it takes:
- the user's own prompts (not tool results, not the CLI's meta lines, not a subagent's), for L0
  and for the summary's "asked";
- the agent's answers: decisions, conventions and root causes it states (`answers`), held in the
  session's state until the user's next prompt, which keeps them unless it disputes them; and
  the open next steps of the latest answer, for the summary's "left";
- tool calls: the files read and edited and the commands run, for the episodic summary;
- a Bash command that failed and a later one of the same program that worked: a pitfall
  candidate with the error and the fix ("confirmed outcome").
Every text taken is stripped of `<private>` blocks first. Lines that are not JSON are skipped.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memkit.capture.provenance import quoted, remember
from memkit.capture.queue import MAX_TEXT, Proposal, refusal
from memkit.capture.state import SessionState
from memkit.safety.private import strip_private

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"memkit.capture.answers"}


MAX_BYTES = 8_000_000  # per pass; a bigger backlog is read by the next hooks
CHECK_EVERY = 50  # lines between deadline checks
MAX_ERROR = 300  # characters of an error kept in a candidate
MAX_COMMAND = 500  # characters of a command kept (for its program, the summary, a pitfall)
MAX_OUTPUT = 20_000  # characters of a failed command's output searched for its error line
READ_TOOLS = ("Read", "NotebookRead")
EDIT_TOOLS = ("Edit", "Write", "MultiEdit", "NotebookEdit")
# Programs whose failure teaches nothing durable (a missing file, a typo in a path).
_TRIVIAL = frozenset(
    (
        *("ls", "cat", "cd", "head", "tail", "grep", "rg", "find", "which", "echo", "test"),
        *("pwd", "true", "false", "stat", "file", "less", "more", "wc"),
    )
)
_META = ("<command-", "<local-command", "Caveat:", "[Request interrupted")
_ERROR_LINE = re.compile(r"(?:error|Error|ERROR|failed|FAILED|fatal|denied|refused|not found)")


MAX_HEARD = 10  # answer proposals waiting for the user's reaction
MAX_ASKED = 8  # prompts kept for the summary
MARK_CHARS = 40  # characters of an answer's end looked for in the transcript
MARK_TAIL = 256_000  # bytes at the transcript's end where the turn's answer is looked for


@dataclass
class Found:
    prompts: list[tuple[str, str, int]] = field(default_factory=list)  # text, prompt id, line
    pitfalls: list[tuple[Proposal, int]] = field(default_factory=list)  # proposal, line
    kept: list[dict[str, Any]] = field(default_factory=list)  # answer proposals not disputed
    disputed: int = 0  # answer proposals the user's next prompt disputed
    complete: bool = True  # False when the deadline or MAX_BYTES stopped the pass


def relative(path: str, project: str) -> str:
    """A path as the summary shows it: relative to the project, or with ~ for home."""
    if not path:
        return ""
    try:
        if project and os.path.commonpath([project, path]) == project:
            return os.path.relpath(path, project)
    except ValueError:
        pass
    home = str(Path.home())
    return "~" + path[len(home) :] if home and path.startswith(home + os.sep) else path


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        blocks = [b for b in content if isinstance(b, dict) and b.get("type") == "text"]
        return "\n".join(str(b.get("text", "")) for b in blocks)
    return ""


def _program(command: str) -> str:
    """The program a shell command runs ("npm" for `cd web && npm ci`; env assignments and
    sudo skipped)."""
    last = re.split(r"&&|\|\||;|\|", command)
    for part in reversed(last):
        words = [w for w in part.split() if "=" not in w.split("/")[0] or w.startswith("-")]
        words = [w for w in words if w not in ("sudo", "env", "time", "exec")]
        if words and words[0] not in ("cd",):
            return words[0].rsplit("/", 1)[-1]
    return ""


def _error_text(content: Any) -> str:
    text = strip_private((_text(content) if not isinstance(content, str) else content)[:MAX_OUTPUT])
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    lines = [ln for ln in lines if not ln.lower().startswith("exit code")] or lines
    best = next((ln for ln in lines if _ERROR_LINE.search(ln)), lines[0] if lines else "")
    return best[:MAX_ERROR]


def scan(path: Path, state: SessionState, *, deadline: float, max_bytes: int = MAX_BYTES) -> Found:
    """Read `path` from `state.offset`, updating `state` (offset, touched files, pending
    errors) and returning what capture should look at."""
    found = Found()
    try:
        size = path.stat().st_size
    except OSError:
        return found
    if size < state.offset:  # a new or rewritten transcript: start again
        state.offset = state.lines = 0
    with path.open("rb") as fh:
        fh.seek(state.offset)
        chunk = fh.read(max_bytes)
    end = chunk.rfind(b"\n") + 1  # complete lines only
    pos = 0
    n = 0
    while pos < end:
        if n and n % CHECK_EVERY == 0 and time.monotonic() > deadline:
            found.complete = False
            break
        stop = chunk.index(b"\n", pos) + 1
        line = chunk[pos:stop]
        pos = stop
        state.offset += len(line)
        state.lines += 1
        n += 1
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and not entry.get("isSidechain"):
            _take(entry, state, found)
    found.complete = found.complete and state.offset >= size
    return found


def answer_mark(answer: str) -> bytes:
    """How the transcript spells the end of `answer` (a Stop hook's `last_assistant_message`,
    the answer's text blocks joined by newlines): the end of its last line, which lies within
    one block, JSON-escaped as Claude Code's JSON.stringify escapes it. b"" for no answer."""
    last = answer.strip().rsplit("\n", 1)[-1][-MARK_CHARS:]
    return json.dumps(last, ensure_ascii=False)[1:-1].encode("utf-8", "surrogatepass")


def holds(path: Path, mark: bytes, offset: int) -> bool:
    """Whether `path`, past `offset` (what earlier hooks read), ends with lines that hold
    `mark`: the turn a Stop hook ends is written. Only the file's tail is read: the answer is
    the turn's last line but a few small ones."""
    try:
        with path.open("rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            start = offset if offset <= size else 0  # rewritten: `scan` starts again too
            fh.seek(max(start, size - MARK_TAIL))
            return mark in fh.read()
    except OSError:
        return False


def _take(entry: dict[str, Any], state: SessionState, found: Found) -> None:
    kind = entry.get("type")
    message = entry.get("message")
    if not isinstance(message, dict):
        return
    content = message.get("content")
    if kind == "assistant" and isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                _tool_use(block, state)
        said = strip_private(_text(content)).strip()
        if said:
            _answer(said[: 2 * MAX_TEXT], state)
    elif kind == "user":
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in content
        ):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    _tool_result(block, state, found)
            return
        if entry.get("isMeta") or entry.get("isCompactSummary"):
            return
        text = strip_private(_text(content)).strip()
        if text and not text.startswith(_META):
            state.sources = []  # a new turn: what the agent reads next is its own
            state.prompts += 1
            short = " ".join(text.split())[:200]
            state.last_prompt = "" if refusal(text[:2000]) else text[:2000]
            if not refusal(short):
                if state.prompts == 1 and not state.first_prompt:
                    state.first_prompt = short
                if len(state.asked) < MAX_ASKED:
                    state.asked.append(short)
            _reaction(text, state, found)
            # What capture proposes is one idea: a pasted log says none in its tail.
            found.prompts.append((text[:MAX_TEXT], str(entry.get("promptId") or ""), state.lines))


def _answer(text: str, state: SessionState) -> None:
    """An answer's statements wait for the user's reaction; its open items are what is left."""
    from memkit.capture.answers import open_items, stated

    for said in stated(text):
        if any(h.get("statement") == said.statement for h in state.heard):
            continue
        # Quoted from a page, a file or an output the agent read: not the team's decision.
        why = "quoted" if quoted(said.statement, state.prints) else refusal(said.statement)
        if why:  # not even in the session's state: counted, as the queue counts its refusals
            state.refused[why] = state.refused.get(why, 0) + 1
            continue
        state.heard = [
            *state.heard,
            {
                "statement": said.statement,
                "kind": said.kind,
                "type": said.type,
                "score": said.score,
                "why": said.why,
                "triggers": list(said.triggers),
                "line": state.lines,
                "after": ", ".join(state.sources[-3:]),
            },
        ][-MAX_HEARD:]
    left = [item for item in open_items(text) if not refusal(item)]
    if left:
        state.left = left


def _reaction(prompt: str, state: SessionState, found: Found) -> None:
    """The user's next prompt after an answer: it keeps what the answer stated, unless it
    disputes it ("no, that's wrong"). The open items of the earlier answer are settled by
    whatever the next answer says."""
    state.left = []
    if not state.heard:
        return
    from memkit.capture.answers import disputes

    if disputes(prompt):
        found.disputed += len(state.heard)
    else:
        found.kept += state.heard
    state.heard = []


def settle_heard(state: SessionState, found: Found) -> None:
    """The session ended: what its last answers stated was not disputed."""
    found.kept += state.heard
    state.heard = []


def _tool_use(block: dict[str, Any], state: SessionState) -> None:
    name = str(block.get("name") or "")
    args = block.get("input")
    if not isinstance(args, dict):
        args = {}
    target = str(args.get("file_path") or args.get("notebook_path") or "")
    source = str(args.get("url") or args.get("query") or target or args.get("command") or "")
    source = strip_private(source).split("\n", 1)[0][:120]
    if name and name not in EDIT_TOOLS and not refusal(source):
        state.sources = [*state.sources, f"{name} {relative(source, state.project)}".strip()][-5:]
    if name in READ_TOOLS:
        state.note("read", relative(strip_private(target), state.project))
    elif name in EDIT_TOOLS:
        state.note("edited", relative(strip_private(target), state.project))
    elif name == "Bash":
        # What is kept (its first 500 characters) is what is checked: a command of 40,000
        # blanks is no slower to read than a short one.
        command = strip_private(str(args.get("command") or "")).strip()[:MAX_COMMAND]
        if refusal(command):
            return  # a command with a secret in it is kept nowhere, like everything capture stores
        state.note("commands", command.split("\n", 1)[0][:160])
        state.tools[str(block.get("id") or "")] = {"name": name, "command": command}
        if len(state.tools) > 50:  # calls whose result never came
            for key in list(state.tools)[:-50]:
                del state.tools[key]


def _tool_result(block: dict[str, Any], state: SessionState, found: Found) -> None:
    content = block.get("content")
    state.prints = remember(
        state.prints, strip_private(_text(content) if not isinstance(content, str) else content)
    )
    call = state.tools.pop(str(block.get("tool_use_id") or ""), None)
    if call is None:
        return
    command = call.get("command", "")
    program = _program(command)
    if not program or program in _TRIVIAL:
        return
    if block.get("is_error"):
        error = _error_text(block.get("content"))
        if refusal(error):
            return
        failed = {"program": program, "command": command, "error": error}
        state.errors = [*state.errors, failed][-5:]
        return
    for i in range(len(state.errors) - 1, -1, -1):
        failed = state.errors[i]
        if failed["program"] == program and failed["command"] != command:
            del state.errors[i]
            found.pitfalls.append((_pitfall(failed, command), state.lines))
            return


def _pitfall(failed: dict[str, str], fix: str) -> Proposal:
    first = failed["command"].split("\n", 1)[0][:160]
    fixed = fix.split("\n", 1)[0][:160]
    error = failed["error"]
    statement = f"`{first}` fails"
    statement += f": {error}" if error else ""
    statement += f". What worked instead: `{fixed}`."
    score = 0.55 + (0.1 if error and _ERROR_LINE.search(error) else 0.0)
    return Proposal(
        statement=statement,
        kind="pitfall",
        type="pitfall",
        scope="shared",
        score=score,
        why="a command failed, then another run of the same program worked",
        triggers=(failed["program"],) if len(failed["program"]) >= 3 else (),
        detail={"error": error, "fix": fixed},
    )
