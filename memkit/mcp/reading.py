"""The `get` tool: atoms by id, whole or only the sections asked for.

An id is looked up in the index, which holds only what validation admitted, and the file is
checked again as it is now before a word of it is shown: an atom edited since the index was
built into something a commit would refuse (a secret, a `<private>` block, broken frontmatter)
is named by its path and codes, never shown. Scopes follow the hooks: shared, episodic and
archived atoms, your roles' and your own; atoms that are superseded, archived or waiting for
review are shown with that said first, since the agent asked for them by name.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memkit.atom import ID_MAX_LEN, ID_RE
from memkit.checks.validate import validate
from memkit.mcp.lookup import BadInput
from memkit.recall.masking import mask
from memkit.recall.pipeline import _sections

MAX_IDS = 20
MAX_SECTIONS = 20
MAX_SECTION_NAME = 80  # characters; a heading word, not a paragraph


@dataclass(frozen=True)
class Located:
    root: Path
    entry: dict[str, Any]


def check_ids(ids: Sequence[str]) -> list[str]:
    wanted = list(dict.fromkeys(str(i).strip() for i in ids if str(i).strip()))
    if not wanted:
        raise BadInput("give at least one atom id, as `search` lists them")
    if len(wanted) > MAX_IDS:
        raise BadInput(f"at most {MAX_IDS} ids per call; ask for the rest in another call")
    bad = [i for i in wanted if not ID_RE.match(i) or len(i) > ID_MAX_LEN]
    if bad:
        shown = ", ".join(repr(mask(b[:ID_MAX_LEN])) for b in bad[:5])
        raise BadInput(f"not an atom id: {shown} (ids are kebab-case, e.g. ws-heartbeat-interval)")
    return wanted


def locate(readers: Sequence[tuple[Path, Any]], wanted: Sequence[str]) -> dict[str, Located]:
    """Where each wanted id is indexed (the first repository that has it wins)."""
    left = set(wanted)
    out: dict[str, Located] = {}
    for root, reader in readers:
        for entry in reader.atoms:
            if entry["id"] in left:
                out[entry["id"]] = Located(root, entry)
                left.discard(entry["id"])
        if not left:
            break
    return out


def refusals(root: Path, paths: Sequence[str]) -> dict[str, list[str]]:
    """The error codes validation gives each file as it is now (none: admitted)."""
    out: dict[str, list[str]] = {}
    for finding in validate(root, list(paths)):
        if finding.is_error:
            out.setdefault(finding.path, [])
            if finding.code not in out[finding.path]:
                out[finding.path].append(finding.code)
    return out


def status_note(entry: dict[str, Any]) -> str:
    if entry.get("pending"):
        return "waiting for review in shared/_pending/ (not served by the hooks until approved)"
    status = str(entry.get("status") or "active")
    if status == "superseded":
        newer = ", ".join(entry.get("superseded_by") or ()) or "a newer atom"
        return f"superseded by {newer}: not current"
    if status == "archived" or entry.get("scope") == "archive":
        return "archived: kept for history, not current"
    expires = str(entry.get("expires") or "")
    if expires and expires < dt.date.today().isoformat():
        return f"expired on {expires}: not current"
    return ""


def pick_sections(body: str, wanted: Sequence[str]) -> tuple[str, list[str]]:
    """The sections of `body` whose heading contains one of `wanted` (case-insensitive), and
    the wanted names that matched none."""
    blocks = [(heading, text) for heading, text in _sections(body) if heading]
    keys = [w.strip().lower() for w in wanted if w.strip()]
    chosen = [text for heading, text in blocks if any(k in heading.lower() for k in keys)]
    missing = [k for k in keys if not any(k in h.lower() for h, _ in blocks)]
    return "\n".join(t.strip() for t in chosen), missing


def render_atom(found: Located, text: str, sections: Sequence[str]) -> str:
    entry = found.entry
    head = f"# {entry['id']} · {entry['type']} · {entry['confidence']} — {mask(entry['title'])}"
    lines = [head, f"(file: {found.root.name}/{entry['path']})"]
    note = status_note(entry)
    if note:
        lines.append(f"(status: {note})")
    if sections:
        body = text.split("\n---", 1)[-1] if text.startswith("---") else text
        picked, missing = pick_sections(body, sections)
        if missing:
            names = [h for h, _ in _headings(body)]
            lines.append(
                f"(no section matches {', '.join(map(repr, missing))}; its sections: "
                f"{', '.join(names) or 'none'})"
            )
        lines.append(picked)
    else:
        lines.append(text.rstrip("\n"))
    return mask("\n".join(lines))


def _headings(body: str) -> list[tuple[str, int]]:
    return [
        (m.group(2).strip(), len(m.group(1))) for m in re.finditer(r"^(#{1,6})\s+(.*)$", body, re.M)
    ]


def read_text(root: Path, relpath: str, limit: int) -> str | None:
    """The file as it is now, or None when it is gone or not a plain file."""
    path = root / relpath
    if path.is_symlink() or not path.is_file():
        return None
    with path.open("rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        return None
    return data.decode("utf-8", errors="replace")
