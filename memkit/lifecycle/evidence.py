"""What a session says about the atoms it met, noted in the usage log for the lifecycle.

- `settle_turn` (Stop): the turn's answer is compared with each atom the session was given,
  by the audit's rule-based classifier (no model); a contradiction is noted against the atom.
  An atom given and not contradicted counts as confirmed by that session.
- `note_written` (PostToolUse of an atom file, `memkit add` run by the agent): the atoms it
  supersedes are contradicted, the atoms it names in `related:` are cited.
- `note_read` (`memkit show` run by the agent): read whole.

The agent's session is the one Claude Code puts in its tools' environment
(`CLAUDE_CODE_SESSION_ID`); a person running `memkit show` in a terminal notes nothing.
Imported by hooks: standard library at module level only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

SESSION_ENV = "CLAUDE_CODE_SESSION_ID"
MAX_CHECKED = 20  # atoms compared with one answer: the session's most recent
MAX_ANSWER = 8_000  # characters of the answer compared


def agent_session() -> str:
    return os.environ.get(SESSION_ENV, "").strip()


def _note(root: Path, session: str, atoms: Iterable[str], what: str) -> None:
    from memkit.claude import repos as _repos  # noqa: PLC0415
    from memkit.claude.usage import usage_log  # noqa: PLC0415

    atoms = [a for a in atoms if a]
    if session and atoms:
        with usage_log(root, keep=_repos.WARM) as usage:
            usage.note(session, atoms, what)


def note_read(root: Path, atom_id: str) -> None:
    _note(root, agent_session(), [atom_id], "read")


def note_written(root: Path, session: str, relpath: str) -> None:
    """An atom file written in a session: what it supersedes is contradicted, what it relates
    to is cited."""
    from memkit.lifecycle.catalog import _frontmatter  # noqa: PLC0415

    fields = _frontmatter(root / relpath)
    if not session or fields is None:
        return
    own = fields.get("id", "")
    _note(root, session, [a for a in fields["supersedes"] if a != own], "contradicted")
    _note(root, session, [a for a in fields["related"] if a != own], "cited")


def _rows(reader: Any, ids: set[str]) -> dict[str, dict[str, Any]]:
    """id -> index entry for `ids`, without building a dict for every atom of a light reader."""
    columns = getattr(reader.atoms, "columns", None)
    names = columns["id"] if columns is not None else [a["id"] for a in reader.atoms]
    return {name: reader.atoms[row] for row, name in enumerate(names) if name in ids}


def _shared_triggers(triggers: Iterable[str], answer: str) -> int:
    words = set(re.findall(r"[\w][\w.+#-]*", answer))
    return sum(1 for t in triggers if t and (t in words if t.isascii() else t in answer))


def settle_turn(root: Path, session: str, answer: str) -> list[str]:
    """Note which of the session's atoms the turn's answer contradicts; returns their ids."""
    from memkit.claude import repos as _repos  # noqa: PLC0415
    from memkit.claude.private import strip_private  # noqa: PLC0415
    from memkit.claude.usage import usage_log  # noqa: PLC0415

    answer = strip_private(answer)[:MAX_ANSWER]
    if not session or not answer.strip():
        return []
    with usage_log(root, keep=_repos.WARM) as usage:
        done = usage.contradicted(session)
        todo = [a for a in usage.session_atoms(session, MAX_CHECKED) if a not in done]
    if not todo:
        return []
    reader = _repos.reader(root)
    if reader is None:
        return []
    from memkit.audit.classify import CONTRADICTS, classify  # noqa: PLC0415
    from memkit.audit.text import statement_text  # noqa: PLC0415

    lowered = answer.lower()
    found = []
    for atom_id, entry in _rows(reader, set(todo)).items():
        text = statement_text(entry["title"], reader.body(entry["path"]))
        shared = _shared_triggers([t.lower() for t in entry["triggers"]], lowered)
        verdict = classify(text, answer, similarity=0.0, shared_triggers=shared)
        if verdict.kind == CONTRADICTS:
            found.append(atom_id)
    _note(root, session, found, "contradicted")
    return found
