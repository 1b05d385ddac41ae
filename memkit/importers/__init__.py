"""Bringing in what a team already keeps elsewhere: CLAUDE.md and `.claude/rules/`, Cursor
rules, architecture decision records.

Each format module reads its files into `Candidate`s (one rule, convention or decision each,
with the file and line it came from); `memkit.importers.run` passes every candidate through
`memkit.add.check_drafts`, the checks `memkit add` runs, and reports what was written and what was
refused, and why.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field

# `source:` of an imported atom: where it came from and a fingerprint of what it said, so
# that importing the same thing again writes nothing (`memkit.importers.run`).
SOURCE_RE = re.compile(
    r"^(?P<path>.+):(?P<line>\d+) \((?P<format>[a-z-]+) (?P<hash>[0-9a-f]{10})\)$"
)


@dataclass(frozen=True)
class Candidate:
    """One atom an import proposes, before any check."""

    format: str  # claude-md | cursor-rules | adr
    source: str  # the file, as `memkit.importers.source.shown_path` names it
    line: int
    text: str
    type: str
    title: str | None = None
    confidence: str = "tentative"
    paths: tuple[str, ...] = ()
    status: str = "active"
    created: str | None = None
    # ADRs: keys (source paths) of the records this one replaces, resolved to ids on write.
    supersedes: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    refusal: str = ""  # the importer's own refusal code (e.g. too-long), checked first
    refusal_message: str = ""
    project: str = ""  # the code project the text is about (`project:` of the atom)
    triggers: tuple[str, ...] = ()  # ADRs: the title's topic words (not part of the fingerprint)

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line}"

    def fingerprint(self) -> str:
        """What the candidate says (not where): the same text imported twice is one atom."""
        said = [
            self.format,
            self.title or "",
            " ".join(self.text.split()),
            sorted(self.paths),
            self.status,
        ]
        digest = hashlib.sha1(json.dumps(said, ensure_ascii=False).encode())  # noqa: S324
        return digest.hexdigest()[:10]

    def source_value(self) -> str:
        return f"{self.where} ({self.format} {self.fingerprint()})"


# The importer's reasons that skip a candidate rather than refuse it: nothing to fix there.
SKIPS = frozenset({"boilerplate", "headings-only"})


@dataclass(frozen=True)
class Unimported:
    """A file that gave no candidates at all, and why."""

    source: str
    reason: str  # a short code: encoding, binary, empty, not-adr, personal, generated, …
    message: str


@dataclass
class Collected:
    """What a format module read: the candidates and the files it could not use."""

    files: int = 0
    candidates: list[Candidate] = field(default_factory=list)
    unimported: list[Unimported] = field(default_factory=list)

    def extend(self, other: Collected) -> None:
        self.files += other.files
        self.candidates += other.candidates
        self.unimported += other.unimported
