"""The rules files an export writes, as text: one file per path-scoped atom, and the other
atoms grouped by type into files that load at every session start, within a size budget.

Both Claude Code (`.claude/rules/*.md`, `paths:`) and Cursor (`.cursor/rules/*.mdc`,
`globs:`/`alwaysApply:`) read this shape; they differ only in the frontmatter, which the
caller supplies. Output is deterministic, so exporting twice changes no byte.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from memkit.atom import Atom
from memkit.importers.source import GENERATED_MARK

DEFAULT_BUDGET = 16_000  # characters of always-loaded memory (~4,000 tokens)
PREFIX = "memkit-"
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
PLURAL = {
    "pitfall": "Pitfalls",
    "decision": "Decisions",
    "procedure": "Procedures",
    "architecture": "Architecture",
    "preference": "Conventions",
    "fact": "Facts",
}


@dataclass
class Plan:
    """Files to write (name → text) and what went where."""

    files: dict[str, str] = field(default_factory=dict)
    scoped: int = 0  # atoms written as path rules
    grouped: int = 0  # atoms in the files that always load
    over_budget: list[str] = field(default_factory=list)  # ids left out for size


def marker(repo: str, command: str) -> str:
    return (
        f"<!-- {GENERATED_MARK} from the memory repository `{repo}`: edits here are "
        f"replaced; change the atoms and run `memkit export {command}` -->"
    )


def demoted(atom: Atom) -> str:
    """The atom as a `## Title` section: its own `# Title` line dropped, deeper headings one
    level down (outside code fences), and a last line naming the atom."""
    lines = atom.body.strip("\n").split("\n")
    heading = atom.title
    if lines and lines[0].startswith("# "):
        # The body's title line is the atom's title as written (its `code` kept, which the
        # plain `atom.title` drops): it becomes the section heading, once.
        heading, lines = lines[0][2:].strip() or atom.title, lines[1:]
    out = [f"## {heading}"]
    fence: str | None = None
    for line in lines:
        m = _FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
        elif fence is not None and m and m.group(1)[0] == fence[0]:
            fence = None
        elif fence is None and re.match(r"^#{1,5} ", line):
            line = f"#{line}"  # noqa: PLW2901 - the demoted line replaces the original
        out.append(line)
    out.append("")
    out.append(f"_memkit atom `{atom.id}` · {atom.type} · {atom.confidence}_")
    return "\n".join(out).strip("\n").replace("\n\n\n", "\n\n")


def plan(
    atoms: Sequence[Atom],
    *,
    repo: str,
    command: str,
    suffix: str,
    scoped_head: Callable[[Atom], str],
    grouped_head: Callable[[str, str], str],
    budget: int = DEFAULT_BUDGET,
) -> Plan:
    """Files for `atoms` (best first). `scoped_head(atom)` and `grouped_head(type, title)`
    give each file's frontmatter for the tool that reads it."""
    out = Plan()
    mark = marker(repo, command)
    groups: dict[str, list[str]] = {}
    used = 0
    for atom in atoms:
        section = demoted(atom)
        if atom.paths:
            body = "\n\n".join([mark, section])
            out.files[f"{PREFIX}paths-{atom.id}{suffix}"] = f"{scoped_head(atom)}{body}\n"
            out.scoped += 1
        elif used + len(section) > budget:
            out.over_budget.append(atom.id)
        else:
            groups.setdefault(atom.type, []).append(section)
            used += len(section)
            out.grouped += 1
    for kind, sections in sorted(groups.items()):
        title = f"Team memory: {PLURAL.get(kind, kind)}"
        text = "\n\n".join([mark, f"# {title}", *sections])
        out.files[f"{PREFIX}{kind}{suffix}"] = f"{grouped_head(kind, title)}{text}\n"
    return out
