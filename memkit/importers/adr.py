"""`memkit import adr DIR`: architecture decision records, one `decision` atom each.

Nygard / adr-tools (`# 3. Title`, `Date:`, `## Status`, `## Context`, `## Decision`,
`## Consequences`), MADR (`* Status:` lines or YAML frontmatter, `## Decision Outcome`) and
table-style headers (`| Status | Approved |`) are read. The status maps to the atom's
(`superseded` stays superseded, deprecated and rejected are archived, proposed is tentative),
the date to `created`, and "Superseded by ADR-7" / "Supersedes [1. …](0001-….md)" to
`supersedes` on the newer record. The body is the decision, then its context and
consequences as far as one atom holds them; the record itself stays the full text.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from memkit.capture.terms import accepted_triggers
from memkit.importers import Candidate, Collected, Unimported
from memkit.importers.rules import ATOM_OVERHEAD, sources
from memkit.importers.source import SourceText
from memkit.importers.split import sections

FORMAT = "adr"
_NOT_ADR_NAMES = ("readme.md", "index.md", "summary.md", "toc.md", "_sidebar.md", "contents.md")
_NUMBERED_TITLE = re.compile(r"^(?:adr[-\s#]*)?0*(\d{1,5})\s*[.:)\-–—]\s*(.+)$", re.I)
_FILE_NUMBER = re.compile(r"(\d{1,5})")
_KEY_VALUE = re.compile(
    r"^\s*(?:[-*+]\s+)?[*_]*([A-Za-z][A-Za-z -]{1,20}?)[*_]*\s*:[*_]*\s*(.+?)\s*$"
)
_TABLE_ROW = re.compile(r"^\s*\|\s*([^|]+?)\s*:?\s*\|\s*([^|]*?)\s*\|")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_ADR_NUMBER = re.compile(
    r"(?:adr|#|record|decision)[-\s#]*0*(\d{1,5})|^\s*\[?0*(\d{1,5})[.\s]", re.I
)
_ORDINAL = re.compile(r"(\d)(st|nd|rd|th)\b", re.I)
_DATE_FORMATS = ("%b %d, %Y", "%B %d, %Y", "%d %B %Y", "%d %b %Y", "%b %d %Y", "%B %d %Y")
_DECISION = re.compile(
    r"^(decision|decision outcome|the decision|resolution|chosen option)\b", re.I
)
_CONTEXT = re.compile(
    r"^(context|problem|background|context and problem statement|motivation)\b", re.I
)
_CONSEQUENCES = re.compile(
    r"^(consequences|positive consequences|negative consequences|implications)\b", re.I
)
_META_SECTIONS = re.compile(
    r"^(status|date|deciders|authors?|tickets?|links?|references?)\s*$", re.I
)

# Status words and what they make the atom: (status, confidence).
_ACTIVE = (
    "accepted",
    "approved",
    "adopted",
    "agreed",
    "decided",
    "done",
    "implemented",
    "active",
    "final",
)
_PROPOSED = (
    "proposed",
    "proposal",
    "pending",
    "draft",
    "open",
    "in review",
    "under review",
    "in progress",
    "wip",
    "review",
)
_ARCHIVED = ("deprecated", "obsolete", "retired", "rejected", "declined", "withdrawn", "abandoned")


@dataclass(frozen=True)
class Record:
    """What one ADR file says, before it becomes a candidate."""

    src: SourceText
    title: str
    number: str
    status: str
    confidence: str
    created: str | None
    body: str
    supersedes: tuple[str, ...]  # references as written: file names or numbers
    superseded_by: tuple[str, ...]
    notes: tuple[str, ...]
    too_long: bool


def parse_date(value: object) -> str | None:
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    text = str(value).strip()
    m = re.search(r"\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b", text)
    if m:
        try:
            return dt.date(int(m[1]), int(m[2]), int(m[3])).isoformat()
        except ValueError:
            return None
    text = _ORDINAL.sub(r"\1", text).strip(" .")
    for fmt in _DATE_FORMATS:
        try:
            return dt.datetime.strptime(text, fmt).date().isoformat()
        except ValueError:
            continue
    return None


def _status(value: str) -> tuple[str, str, str]:
    """(status, confidence, note) for a status line as written."""
    words = re.sub(r"[*_`\[\]]", "", value).strip().lower()
    if re.match(r"(partly|partially)\s+superseded", words):
        return (
            "active",
            "observed",
            f"status `{value.strip()}`: kept active (only in part replaced)",
        )
    if words.startswith("superseded") or words.startswith("replaced"):
        return "superseded", "observed", ""
    if words.startswith(_ARCHIVED):
        return "archived", "observed", ""
    if words.startswith(_ACTIVE):
        return "active", "fixed", ""
    if words.startswith(_PROPOSED):
        return "active", "tentative", ""
    return (
        "active",
        "tentative",
        f"status `{value.strip()[:40]}` not recognised: imported as tentative",
    )


def _references(value: str) -> tuple[str, ...]:
    """Records a status or link line names: file names from links, else numbers."""
    links = [PurePosixPath(href.split("#")[0]).name for href in _LINK.findall(value)]
    if links:
        return tuple(link for link in links if link)
    if re.fullmatch(r"\s*(n/?a|none|-|—)?\s*", value, re.I):
        return ()
    return tuple(a or b for a, b in _ADR_NUMBER.findall(value))


def _header_pairs(src: SourceText, head: str) -> list[tuple[str, str]]:
    """(key, value) pairs an ADR states in its header: frontmatter, `Key: value` lines and
    two-column table rows before the first section."""
    pairs = [(str(k).lower(), str(v)) for k, v in src.meta.items() if not isinstance(v, dt.date)]
    pairs += [
        (str(k).lower(), v.isoformat()) for k, v in src.meta.items() if isinstance(v, dt.date)
    ]
    for line in head.split("\n"):
        m = _TABLE_ROW.match(line) or _KEY_VALUE.match(line)
        if m and not set(m.group(2)) <= set("-: |"):
            pairs.append((m.group(1).strip().lower().rstrip(":"), m.group(2).strip()))
    return pairs


def _compose(parts: list[tuple[str, str]], budget: int, source: str) -> tuple[str, bool, bool]:
    """The body from (heading, text) parts in order of importance: every part that fits, the
    first one always. Returns (body, shortened, first part too long)."""
    out: list[str] = []
    used = 0
    shortened = False
    for n, (heading, text) in enumerate(parts):
        block = f"## {heading}\n\n{text}" if n else text
        size = block.count("\n") + 2
        if n and used + size > budget - 2:
            shortened = True
            continue
        out.append(block)
        used += size
    if shortened:
        out.append(f"(Shortened: the full record is {source}.)")
    body = "\n\n".join(out)
    return body, shortened, body.count("\n") + 1 > budget


def read_record(src: SourceText, max_lines: int) -> Record | str:
    """The record in `src`, or why it is not one."""
    found = sections(src.body, src.body_line)
    title_at = next((i for i, (h, _) in enumerate(found) if h.level == 1 and h.text), None)
    if title_at is None:
        return "has no `# Title` heading"
    raw_title = found[title_at][0].text
    head = "\n".join([found[0][1], found[title_at][1]])
    pairs = _header_pairs(src, head)
    body_sections = [(h, t) for h, t in found[title_at + 1 :] if t or h.level]
    for h, text in body_sections:
        if h.text.strip().lower() in ("status", "date"):
            first = next((x for x in text.split("\n") if x.strip()), "")
            pairs.append((h.text.strip().lower(), first.strip()))
            for line in text.split("\n")[1:]:
                m = re.match(
                    r"^\s*[-*]?\s*(supersedes|superseded by|amends|amended by)\b(.*)$", line, re.I
                )
                if m:
                    pairs.append((m.group(1).lower(), m.group(2)))
    status_text = next((v for k, v in pairs if k == "status"), "")
    created = next(
        (d for k, v in pairs if k in ("date", "created", "decided") if (d := parse_date(v))), None
    )
    if (
        not status_text
        and created is None
        and not any(_DECISION.match(h.text) for h, _ in body_sections)
    ):
        return "is not an ADR: no status, date or Decision section"
    notes: list[str] = []
    status, confidence, note = (
        _status(status_text)
        if status_text
        else ("active", "tentative", "no status: imported as tentative")
    )
    if note:
        notes.append(note)
    if created is None:
        notes.append("no date found: created is today")
    supersedes: list[str] = []
    superseded_by: list[str] = []
    for raw_key, value in pairs:
        key = raw_key.replace("-", " ").replace("_", " ")
        if key == "supersedes":
            supersedes += _references(value)
        elif key in ("superseded by", "status") and re.match(r"\W*superseded\s+by", value, re.I):
            superseded_by += _references(re.sub(r"^\W*superseded\s+by", "", value, flags=re.I))
        elif key == "superseded by":
            superseded_by += _references(value)
    m = _NUMBERED_TITLE.match(raw_title)
    number_match = _FILE_NUMBER.search(src.path.stem)
    number = m.group(1) if m else (str(int(number_match.group(1))) if number_match else "")
    title = f"ADR {int(m.group(1))}: {m.group(2).strip()}" if m else raw_title
    content = [
        (h.text, t) for h, t in body_sections if t and h.level and not _META_SECTIONS.match(h.text)
    ]
    decision = [(h, t) for h, t in content if _DECISION.match(h)]
    if decision:
        ordered = (
            decision
            + [(h, t) for h, t in content if _CONTEXT.match(h)]
            + [(h, t) for h, t in content if _CONSEQUENCES.match(h)]
        )
    else:
        ordered = content or [("", found[title_at][1])]
    body, shortened, too_long = _compose(ordered, max_lines - ATOM_OVERHEAD, src.shown)
    if shortened:
        notes.append("shortened to fit one atom; the record is the full text")
    return Record(
        src=src,
        title=title,
        number=number,
        status=status,
        confidence=confidence,
        created=created,
        body=body,
        supersedes=tuple(dict.fromkeys(supersedes)),
        superseded_by=tuple(dict.fromkeys(superseded_by)),
        notes=tuple(notes),
        too_long=too_long or not body.strip(),
    )


def _resolver(records: Sequence[Record]) -> dict[str, str]:
    """A file name, or a number unique in its folder and then overall, → the record's source."""
    names: dict[str, str] = {}
    numbers: dict[str, list[str]] = {}
    for rec in records:
        names[rec.src.path.name] = rec.src.shown
        names[rec.src.path.stem] = rec.src.shown
        if rec.number:
            numbers.setdefault(str(int(rec.number)), []).append(rec.src.shown)
    for number, shown in numbers.items():
        if len(shown) == 1:
            names.setdefault(number, shown[0])
    return names


def _resolve(ref: str, rec: Record, names: dict[str, str], records: Sequence[Record]) -> str | None:
    if ref.isdigit():
        same_folder = [
            r.src.shown
            for r in records
            if r.number and int(r.number) == int(ref) and r.src.path.parent == rec.src.path.parent
        ]
        if len(same_folder) == 1:
            return same_folder[0]
        return names.get(str(int(ref)))
    return names.get(ref) or names.get(PurePosixPath(ref).stem)


_BOILERPLATE_TITLE = re.compile(r"^(?:ADR \d+: )?record architecture decisions\.?$", re.I)


def is_adr_boilerplate(rec: Record) -> bool:
    """The record `adr init` writes first ("1. Record architecture decisions": we will use
    ADRs, as described by Michael Nygard): about the log, not the project; as an atom it
    would be a `fixed` decision listed at every session start."""
    return bool(_BOILERPLATE_TITLE.match(rec.title.strip())) and (
        "architecture decision record" in rec.body.lower()
    )


_NAME_RUN = re.compile(r"(?:\b[A-Z][\w.+#-]*(?:\s+|$))+")


def title_triggers(title: str) -> tuple[str, ...]:
    """A record's triggers: the names in its title first (`PostgreSQL`, `Argo CD`: capitalised
    words after the first, runs of them kept together), then its other topic words."""
    topic = re.sub(r"^ADR \d+: ", "", title).strip()
    rest = topic.partition(" ")[2]
    names = [m.group().strip().lower() for m in _NAME_RUN.finditer(rest)]
    return accepted_triggers(topic, tuple(names))


def _not_a_record(path: Path) -> bool:
    """An index or a template beside the records (`README.md`, `0000-template.md`), not a
    record about templates (`0010-django-templates.md`)."""
    if path.name.lower() in _NOT_ADR_NAMES:
        return True
    if not re.search(r"(?:^|[-_ ])template$", path.stem, re.I):
        return False
    number = _FILE_NUMBER.search(path.stem)
    return number is None or int(number.group(1)) == 0


def _choose(found: Path, rel: str, folder: Path) -> bool | tuple[str, str]:
    if found.suffix.lower() not in (".md", ".markdown"):
        return False
    if _not_a_record(found):
        return "not-adr", "is an index or template, not a record"
    return True


def collect(
    paths: Sequence[Path],
    *,
    max_lines: int,
    encoding: str | None = None,
    forced_type: str | None = None,
) -> Collected:
    out = Collected()
    records: list[Record] = []
    for src in sources(paths, out, _choose, encoding=encoding):
        out.files += 1
        rec = read_record(src, max_lines)
        if isinstance(rec, str):
            out.unimported.append(Unimported(src.shown, "not-adr", rec))
        else:
            records.append(rec)
    names = _resolver(records)
    edges: dict[str, set[str]] = {r.src.shown: set() for r in records}
    unresolved: dict[str, list[str]] = {}
    for rec in records:
        for ref in rec.supersedes:
            target = _resolve(ref, rec, names, records)
            if target and target != rec.src.shown:
                edges[rec.src.shown].add(target)
            elif not target and not ref.isdigit():
                # Maybe a record imported before, from elsewhere: `run` looks it up by name.
                edges[rec.src.shown].add(f"file:{ref}")
            elif not target:
                unresolved.setdefault(rec.src.shown, []).append(ref)
        for ref in rec.superseded_by:
            newer = _resolve(ref, rec, names, records)
            if newer and newer != rec.src.shown:
                edges[newer].add(rec.src.shown)
    for rec in records:
        if is_adr_boilerplate(rec):
            out.candidates.append(
                Candidate(
                    format=FORMAT,
                    source=rec.src.shown,
                    line=1,
                    text=rec.body,
                    type="decision",
                    title=rec.title,
                    refusal="boilerplate",
                    refusal_message="is the record adr-tools writes to start a log (`adr init`), "
                    "about keeping records, not a decision of the team",
                )
            )
            continue
        notes = list(rec.notes)
        if rec.src.shown in unresolved:
            missing = ", ".join(unresolved[rec.src.shown])
            notes.append(f"supersedes {missing}: not found among the records read")
        cand = Candidate(
            format=FORMAT,
            source=rec.src.shown,
            line=1,
            text=rec.body,
            type=forced_type or "decision",
            title=rec.title,
            confidence=rec.confidence,
            status=rec.status,
            created=rec.created,
            supersedes=tuple(sorted(edges[rec.src.shown])),
            notes=tuple(notes),
            project=rec.src.project,
            # A record is found by what it decides about: "why Postgres?" names no sentence
            # of it, but a word of its title.
            triggers=title_triggers(rec.title),
        )
        if rec.too_long:
            cand = replace(
                cand,
                refusal="too-long",
                refusal_message="its decision alone is longer than one atom may be "
                f"({max_lines} lines, limits.atom_lines)",
            )
        out.candidates.append(cand)
    return out
