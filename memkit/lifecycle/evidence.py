"""What a session says about the atoms it met, noted in the usage log for the lifecycle.

- `settle_turn` (Stop): the turn's answer is compared with each atom the session was given:
  one it refers to (`refers`: its id, or two of its own words or values that the prompt did
  not bring) is noted `answered`; one the audit's rule-based classifier (no model) finds it
  contradicting, `contradicted`. Only an atom the answer used (or the agent read, or a written
  atom cited) and that was not contradicted counts as confirmed by that session; one merely
  injected does not.
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
from typing import TYPE_CHECKING, Any

from memkit.audit.text import statement_text
from memkit.audit.verdict import CONTRADICTS, verdict
from memkit.lifecycle.catalog import _frontmatter
from memkit.recall.usage import usage_log
from memkit.safety.private import strip_private
from memkit.triggers import STOP_WORDS

if TYPE_CHECKING:
    from memkit.recall.readers import Readers

SESSION_ENV = "CLAUDE_CODE_SESSION_ID"
MAX_CHECKED = 20  # atoms compared with one answer: the session's most recent
MAX_ANSWER = 8_000  # characters of the answer compared


def agent_session() -> str:
    return os.environ.get(SESSION_ENV, "").strip()


def _note(root: Path, session: str, atoms: Iterable[str], what: str) -> None:
    atoms = [a for a in atoms if a]
    if session and atoms:
        with usage_log(root) as usage:
            usage.note(session, atoms, what)


def note_read(root: Path, atom_id: str) -> None:
    _note(root, agent_session(), [atom_id], "read")


def note_written(root: Path, session: str, relpath: str) -> None:
    """An atom file written in a session: what it supersedes is contradicted, what it relates
    to is cited."""
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


_TOKEN = re.compile(
    r"`([^`]{2,60})`|(?<![\w.])(\d+(?:[.,:]\d+)*)(?![\d.,:]*\w*[.-]\w)"
    r"|([A-Za-z][\w.+#/-]*[\w+#])|([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)"
)
VALUE, WORD, PIECE = 2.0, 1.0, 0.5  # what each kind of shared word weighs; 2 shows use


def _own_words(text: str) -> dict[str, float]:
    """What a text says in its own words, each with its weight: values (numbers of two digits
    or more, code spans), names and words of five letters or more that are not stop words,
    Chinese two-character pieces."""
    out: dict[str, float] = {}
    for code, number, word, cjk in _TOKEN.findall(text):
        if code:
            out[code.lower()] = VALUE
        elif number and len(number) > 1:
            out[number] = VALUE
        elif word and len(word) >= 5 and word.lower() not in STOP_WORDS:
            out.setdefault(word.lower(), WORD)
        elif cjk:
            for i in range(len(cjk) - 1):
                if (piece := cjk[i : i + 2]) not in STOP_WORDS:
                    out.setdefault(piece, PIECE)
    return out


def refers(answer: str, atom_id: str, atom_text: str, prompt: str = "", known: str = "") -> bool:
    """Whether an answer draws on an atom: it names the atom's id, or it holds the atom's own
    words or values weighing 2 or more (a value 2, a word 1, a Chinese piece 0.5) that the
    prompt did not hold. An answer that only repeats the prompt's words, which is why the atom
    was injected, does not show it was used. `known`: words to discount when the prompt is not
    known (the atom's title and triggers: what a prompt that brought it most likely said)."""
    if atom_id.lower() in answer.lower():
        return True
    said = _own_words(answer)
    asked = _own_words(prompt or known)
    mine = _own_words(atom_text)
    return sum(w for word, w in mine.items() if word in said and word not in asked) >= VALUE


def settle_turn(
    root: Path, session: str, answer: str, readers: Readers, prompt: str = ""
) -> list[str]:
    """Note which of the session's atoms the turn's answer refers to and which it
    contradicts (`prompt`: the turn's prompt, when known); returns those it contradicts."""

    answer = strip_private(answer)[:MAX_ANSWER]
    if not session or not answer.strip():
        return []
    with readers.usage_log(root) as usage:
        done = usage.contradicted(session)
        todo = [a for a in usage.session_atoms(session, MAX_CHECKED) if a not in done]
    if not todo:
        return []
    reader = readers.reader(root)
    if reader is None:
        return []

    lowered = answer.lower()
    found = []
    used = []
    for atom_id, entry in _rows(reader, set(todo)).items():
        text = statement_text(entry["title"], reader.body(entry["path"]))
        shared = _shared_triggers([t.lower() for t in entry["triggers"]], lowered)
        # The one judgement of two texts (issue 27), as the gate and the audit ask it.
        judged = verdict(text, answer, similarity=0.0, shared_triggers=shared)
        if judged.kind == CONTRADICTS:
            found.append(atom_id)
        elif refers(
            answer,
            atom_id,
            text,
            strip_private(prompt),
            known=" ".join([str(entry["title"]), *map(str, entry["triggers"])]),
        ):
            used.append(atom_id)
    _note(root, session, used, "answered")
    _note(root, session, found, "contradicted")
    return found
