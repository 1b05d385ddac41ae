"""The atom: one Markdown file with YAML frontmatter, parsed once into a frozen record.

This module holds the records and the pure rules about them (the key vocabulary, which
paths are atoms and in which scope); it imports nothing but the standard library, so the
Claude Code query path can use the records without ruamel or mistune. The rest of the
package reads and writes atom files, one concern a module:

- `read`: bytes → checked text → frontmatter + body → `Atom` (`read_atom`, `ParsedAtom`);
- `yaml`: the frontmatter block as a mapping with key lines (plain subset or ruamel);
- `plain`: the plain subset of YAML read without a YAML library, as ruamel reads it
  (validation, the index) or every value a string (scans of every atom, the hook path);
- `checks`: the per-key and per-file format rules, one function a rule (MK002-MK022);
- `markdown`: the body as sections and bullets with their lines;
- `write`: frontmatter changed in place, comments and quoting kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

TYPES = ("fact", "procedure", "architecture", "pitfall", "decision", "preference")
CONFIDENCES = ("tentative", "observed", "fixed")
STATUSES = ("active", "superseded", "archived")
# The seeds wrote confidence as one CJK character; both spellings stay valid.
CONFIDENCE_ALIASES: Mapping[str, str] = MappingProxyType(
    {"臨": "tentative", "觀": "observed", "观": "observed", "固": "fixed"}
)

REQUIRED_KEYS = ("id", "type", "confidence", "created")
LIST_KEYS = ("triggers", "paths", "related", "supersedes", "superseded_by", "tags")
REFERENCE_KEYS = ("related", "supersedes", "superseded_by")
KNOWN_KEYS = frozenset(
    (
        *REQUIRED_KEYS,
        *LIST_KEYS,
        "author",
        "status",
        "scope",
        "title",
        "updated",
        "expires",
        "audience",
        "source",
        "project",
        "rejected_reason",
        "archived_reason",
        "reviewed_by",
        "reviewed",
    )
)

ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
ID_MAX_LEN = 80

# Top-level folders of a memory repository and the scope each one gives its atoms.
SCOPE_DIRS = ("shared", "roles", "personal", "episodic", "archive")
PENDING_DIR = "shared/_pending"


@dataclass(frozen=True)
class Bullet:
    line: int
    text: str


@dataclass(frozen=True)
class Section:
    """A heading and what follows it up to the next heading of the same or higher level."""

    heading: str
    level: int
    line: int
    end_line: int
    text: str
    bullets: tuple[Bullet, ...] = ()


@dataclass(frozen=True)
class Atom:
    path: str  # relative to the repository root, with forward slashes
    id: str
    type: str
    confidence: str
    created: str
    status: str
    scope: str
    title: str
    body: str
    author: str = ""
    triggers: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    related: tuple[str, ...] = ()
    supersedes: tuple[str, ...] = ()
    superseded_by: tuple[str, ...] = ()
    audience: str = ""
    expires: str = ""
    source: str = ""  # where it came from (imports: `path:line (format hash)`)
    project: str = ""  # the code project it is about (imports of a project's CLAUDE.md)
    pending: bool = False
    sections: tuple[Section, ...] = ()
    body_line: int = 1  # file line on which the body starts
    key_lines: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    extra: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def line_of(self, key: str) -> int:
        return self.key_lines.get(key, 1)

    @property
    def is_active(self) -> bool:
        return self.status == "active" and not self.pending


def scope_from_path(relpath: str) -> tuple[str, bool] | None:
    """The scope an atom at `relpath` belongs to, and whether it waits for review.

    None means the file is not an atom (a README, `_roles.md`, a person's `role.md`,
    anything outside the scope folders).
    """
    parts = relpath.split("/")
    name = parts[-1]
    if not name.endswith(".md") or name.startswith(("_", ".")) or name == "README.md":
        return None
    top = parts[0]
    if top == "shared":
        if len(parts) >= 3 and parts[1] == "_pending":
            return "shared", True
        if any(p.startswith("_") for p in parts[1:-1]):
            return None
        return "shared", False
    if top in ("roles", "personal"):
        if len(parts) < 3:
            return None
        if top == "personal" and len(parts) == 3 and name == "role.md":
            return None
        kind = "role" if top == "roles" else "personal"
        return f"{kind}:{parts[1]}", False
    if top in ("episodic", "archive") and len(parts) >= 2:
        return top, False
    return None


def is_atom_path(relpath: str) -> bool:
    return scope_from_path(relpath) is not None


def atom_paths(relpaths: Iterable[str]) -> list[str]:
    """`[p for p in relpaths if is_atom_path(p)]`, the folder rules judged once per folder:
    listing 50,000 files costs ~20 ms instead of ~150 ms. Files in a folder starting with
    "." are left out too, as a tree walk skips them."""
    folders: dict[str, bool] = {}
    out = []
    for path in relpaths:
        folder, _, name = path.rpartition("/")
        ok = folders.get(folder)
        if ok is None:
            hidden = any(part.startswith(".") for part in folder.split("/"))
            ok = not hidden and scope_from_path(f"{folder}/probe.md") is not None
            folders[folder] = ok
        if (
            ok
            and name.endswith(".md")
            and name[:1] not in ("_", ".")
            and name != "README.md"
            and (name != "role.md" or is_atom_path(path))
        ):
            out.append(path)
    return out


def id_from_path(relpath: str) -> str:
    return relpath.rsplit("/", 1)[-1].removesuffix(".md")
