"""What the site may show, and reading it: every atom file through admission, once.

The one decision is `hidden_because`: an atom is shown exactly when `memkit validate` admits
it (no error of its own, none from the references across files: MK009-MK011) and its scope
is the team's. The site is published to the whole team (CI, Pages), so:

- never a file admission refuses (a secret, a `<private>` block, prompt injection when the
  configuration refuses it, a broken reference), not even its title: it is counted, not named;
- never `personal/<user>/`: a person's own memory is served by recall to that person alone,
  and a site built in CI has no "me" to serve it to;
- never `episodic/` summaries: they are their author's, and they expire;
- nor either of them archived (`archive/episodic/…`, `archive/personal/<user>/…`): `memkit
  archive` keeps the path, and the atom stays whose it was.

Everything else is shown, each where it belongs: live atoms on the start page and in the
lists, `shared/_pending/` under review, superseded and archived atoms on the archive page,
expired ones flagged. Role atoms (`roles/<role>/`) are the team's too: recall serves them by
role, for relevance, not secrecy, and the page says whose role they are.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from memkit.admission.decide import file_findings, read_admitted, refused_across
from memkit.atom import Atom, scope_from_path
from memkit.atom.plain import read_strings
from memkit.config import Config
from memkit.lifecycle.archive import ARCHIVE
from memkit.parallel import in_halves
from memkit.recall.visibility import kept_from_team
from memkit.site.cache import Entry

log = logging.getLogger(__name__)
MORE_KEYS = ("updated", "reviewed_by", "reviewed", "rejected_reason", "archived_reason")
PARALLEL_ATOMS = 2000  # from this many files, a forked child reads half (memkit.parallel)


def hidden_because(atom: Atom | None, codes: Sequence[str]) -> str:
    """'' when the site may show this atom, else why not (a word for the counts): the one
    decision of what the site shows. `codes` are the errors admission finds in the file and
    across files; a shown atom's status only decides where it is shown."""
    if atom is None or codes:
        return "refused"
    scope = atom.scope
    if scope == "archive":
        # `memkit archive` keeps the path the atom had (archive/episodic/…,
        # archive/personal/<user>/…): archived, it is still its author's alone.
        before = scope_from_path(atom.path.removeprefix(ARCHIVE))
        scope = before[0] if before is not None else scope
    return kept_from_team(scope)  # the team's site shows what is the whole team's


@dataclass(frozen=True)
class Shown:
    """One atom the site shows, with what it needs besides the atom."""

    atom: Atom
    blob: str  # git's blob id of the file as read: pages are reused while it is unchanged
    findings: tuple[str, ...] = ()  # warnings of an atom waiting for review, as printed
    more: tuple[tuple[str, str], ...] = ()  # frontmatter the Atom record does not keep

    @property
    def key(self) -> str:
        return entry_key(self.atom.path, self.blob)


@dataclass
class Collected:
    atoms: dict[str, Shown] = field(default_factory=dict)  # by id, sorted by path
    hidden: Counter[str] = field(default_factory=Counter)  # reason -> files not shown
    # What was learnt of each file (`entry_key`), for the pages, the search and the cache.
    entries: dict[str, Entry] = field(default_factory=dict)
    read: int = 0  # files read this time (the others were known from the cache)


def entry_key(path: str, blob: str) -> str:
    return f"{path}\0{blob}"


def collect(
    root: Path, config: Config, manifest: dict[str, str], known: dict[str, Entry] | None = None
) -> Collected:
    """Read every atom file of `manifest` (path -> blob id) and keep what may be shown;
    `known`: what an earlier build learnt of files, by `entry_key` (the site's cache)."""
    known = known or {}
    paths = sorted(manifest)
    todo = [p for p in paths if entry_key(p, manifest[p]) not in known]

    def work(part: Sequence[str], in_child: bool) -> list[tuple[str, Entry]]:
        done = []
        for path in part:
            parsed, codes = read_admitted(root, path, config, fast=True)
            # A refused file keeps only what the reference checks read: the cache holds no
            # secret, no <private> text, no injection.
            entry = Entry(codes, _references_only(parsed.atom) if codes else _slim(parsed.atom))
            if not codes and parsed.atom is not None:
                entry.more = _more_keys(parsed.text)
                if parsed.atom.pending:
                    # Review needs what validate warns about too (MK016, MK112, …).
                    entry.warnings = tuple(
                        f.format() for f in sorted(file_findings(parsed, config)) if not f.is_error
                    )
            if in_child and entry.atom is not None:  # read-only mappings do not pickle
                entry.atom = None if entry.atom is None else _portable(entry.atom)
            done.append((path, entry))
        return done

    read = dict(known)
    for share in in_halves(todo, work, minimum=PARALLEL_ATOMS):
        for path, entry in share:
            if entry.atom is not None:
                entry.atom = _restored(entry.atom)
            read[entry_key(path, manifest[path])] = entry
    out = Collected(read=len(todo))
    out.entries = {entry_key(p, manifest[p]): read[entry_key(p, manifest[p])] for p in paths}
    every = [e.atom for e in out.entries.values() if e.atom is not None]
    held = refused_across(every, paths)
    for path in paths:
        entry = out.entries[entry_key(path, manifest[path])]
        atom = entry.atom
        codes = sorted({*entry.codes, *held.get(path, ())})
        reason = hidden_because(atom, codes)
        if reason or atom is None:
            out.hidden[reason or "refused"] += 1
            continue
        out.atoms[atom.id] = Shown(atom, manifest[path], entry.warnings, entry.more)
    log.info(
        "site: %d atoms shown, hidden: %s; %d of %d files read",
        len(out.atoms),
        dict(out.hidden),
        len(todo),
        len(paths),
    )
    return out


def _more_keys(text: str) -> tuple[tuple[str, str], ...]:
    """The frontmatter keys a reader wants to see that `Atom` does not hold (when, by whom and
    why it was reviewed or retired), as strings; () when the block is not plain YAML."""
    lines = text.split("\n")
    end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), 0)
    meta = read_strings("\n".join(lines[1:end])) if end else None
    if not meta:
        return ()
    return tuple((k, v) for k in MORE_KEYS if isinstance(v := meta.get(k), str) and v.strip())


def _references_only(atom: Atom | None) -> Atom | None:
    if atom is None:
        return None
    return Atom(
        path=atom.path,
        id=atom.id,
        type="",
        confidence="",
        created="",
        status=atom.status,
        scope=atom.scope,
        title="",
        body="",
        related=atom.related,
        supersedes=atom.supersedes,
        superseded_by=atom.superseded_by,
        pending=atom.pending,
    )


def _slim(atom: Atom | None) -> Atom | None:
    """Without the sections: the site renders the body itself."""
    return None if atom is None else dataclasses.replace(atom, sections=())


def _portable(atom: Atom) -> Atom:
    """What pickles back from the child: an Atom's read-only mappings as dicts."""
    return dataclasses.replace(atom, key_lines=dict(atom.key_lines), extra=dict(atom.extra))


def _restored(atom: Atom) -> Atom:
    if isinstance(atom.key_lines, MappingProxyType):
        return atom
    return dataclasses.replace(
        atom,
        key_lines=MappingProxyType(dict(atom.key_lines)),
        extra=MappingProxyType(dict(atom.extra)),
    )
