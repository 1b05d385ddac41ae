"""PreToolUse: atoms whose `paths` match the file about to be read or edited, once per
session. PostToolUse: an atom file Claude wrote is validated, and blocked with the reason; a
valid one that contradicts a live atom is reported, and sent to review when it must be."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memkit.claude.protocol import context_output
from memkit.index.paths import matching_glob
from memkit.recall.budget import estimate_tokens
from memkit.recall.pipeline import Recalled, on_disk, render, visible
from memkit.recall.readers import Readers, find_repos
from memkit.recall.stale import stale_line
from memkit.recall.trust import trusted_root
from memkit.recall.usage import agent_key

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {
    "memkit.atom",
    "memkit.checks.validate",
    "memkit.claude.written",
    "memkit.lifecycle.evidence",
}


FILE_TOOLS = ("Read", "Edit", "Write", "MultiEdit")
WRITE_TOOLS = ("Edit", "Write", "MultiEdit")
MAX_ATOMS = 5  # per file: the rest come with the next file or prompt


def _relative(file_path: str, payload: dict[str, Any]) -> str:
    project = Path(str(os.environ.get("CLAUDE_PROJECT_DIR") or payload.get("cwd") or "."))
    path = Path(file_path)
    try:
        return path.resolve().relative_to(project.resolve()).as_posix()
    except (ValueError, OSError):
        return path.as_posix().lstrip("/")


def pre_tool_use(
    payload: dict[str, Any], repos: Sequence[str], readers: Readers
) -> dict[str, Any] | None:
    if payload.get("tool_name") not in FILE_TOOLS:
        return None
    file_path = str((payload.get("tool_input") or {}).get("file_path") or "")
    if not file_path:
        return None
    rel = _relative(file_path, payload)
    session = str(payload.get("session_id") or "")
    # A subagent (issue 43) has its own record: the main agent being given an atom does not
    # give it to the subagent that reads the file.
    holder = agent_key(session, str(payload.get("agent_id") or ""))

    items: list[Recalled] = []
    for root in find_repos(payload, repos):
        reader = readers.reader(root)
        if reader is None:
            continue
        here: list[Recalled] = []
        with readers.usage_log(root) as usage:
            given = usage.given(holder)
            scopes = readers.scopes(root)
            stale, today = reader.superseded, time.strftime("%Y-%m-%d")
            for entry in reader.atoms:
                if not entry["paths"] or entry["id"] in given:
                    continue
                if not visible(entry, scopes, stale, today):
                    continue
                glob = matching_glob(entry["paths"], rel)
                if glob is None or not on_disk(root, entry["path"]):
                    continue
                body = reader.body(entry["path"])
                here.append(
                    Recalled(
                        entry["id"],
                        entry["title"],
                        entry["type"],
                        entry["confidence"],
                        f"paths '{glob}' matches {rel}",
                        body,
                        estimate_tokens(body),
                        str(root),
                        stale_line(reader, entry),
                    )
                )
            here.sort(key=lambda r: bool(r.stale))  # what the code contradicts comes last
            here = here[: MAX_ATOMS - len(items)]
            usage.record(session, [i.id for i in here], kind="path", given_to=holder)
        items += here
    # Context only: the permission decision is never touched.
    return context_output("PreToolUse", render(items))


def post_tool_use(
    payload: dict[str, Any], repos: Sequence[str], readers: Readers
) -> dict[str, Any] | None:
    del readers  # it reads the written file itself, not the index
    if payload.get("tool_name") not in WRITE_TOOLS:
        return None
    file_path = str((payload.get("tool_input") or {}).get("file_path") or "")
    if not file_path.endswith(".md"):
        return None
    from memkit.atom import is_atom_path
    from memkit.checks.validate import validate

    path = Path(file_path).resolve()
    found = trusted_root([], str(path.parent))
    if found is None:
        return None
    root = Path(found)

    rel = path.relative_to(root).as_posix()
    if not is_atom_path(rel):
        return None
    errors = [f.format() for f in validate(root, [rel]) if f.is_error]
    if not errors:
        from memkit.claude.written import contradiction_check
        from memkit.lifecycle.evidence import note_written

        note_written(root, str(payload.get("session_id") or ""), rel)

        return contradiction_check(root, rel)
    return {
        "decision": "block",
        "reason": "memkit: this memory atom is invalid; fix it before going on:\n"
        + "\n".join(errors[:20]),
    }
