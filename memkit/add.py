"""Writing a new atom through the same checks as a commit: the one path that `memkit add`,
accepted capture candidates, the MCP server's `save` and imports all take.

`add_atom` builds the file (id from the title, frontmatter filled in), runs validation, the
content checks and the write gate on it, routes sensitive atoms from outside management to
`shared/_pending/`, and writes it atomically only when nothing refuses it. It never overwrites
a file and never prints: callers render the `AddOutcome`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import re
import unicodedata
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memkit.admission.content import run_content_checks
from memkit.atom import ID_MAX_LEN, id_from_path
from memkit.atom.read import parse_atom_bytes
from memkit.atom.title import title_of
from memkit.audit.write import PENDING, conflicts, remember
from memkit.changeset import Change
from memkit.checks.gate import gate_atoms
from memkit.checks.roles import judge_changes
from memkit.config import Config, load_config
from memkit.errors import MemkitError, UsageError
from memkit.files import write_atomic
from memkit.findings import Finding, Severity
from memkit.gate.score import is_pitfall
from memkit.repo import list_atom_files
from memkit.roles import git_email, identify, sensitive_kinds
from memkit.safety.injection import held_for_review
from memkit.safety.invisible import harmless, without_harmless
from memkit.safety.secrets import find_secrets
from memkit.safety.text import has_cjk
from memkit.safety.values import looks_random

# Refused for what the text says: a secret, `<private>` text, prompt injection.
TEXT_REFUSALS = ("MK110", "MK111", "MK112")


@dataclass(frozen=True)
class Draft:
    """What the caller wants written; everything else is derived."""

    text: str
    type: str = "fact"
    # None: `tentative`, or `observed` for a pitfall that passes the gate (the fast path).
    confidence: str | None = None
    scope: str = "shared"  # shared, role:<name>, personal[:<user>] or episodic
    title: str | None = None
    triggers: tuple[str, ...] = ()
    supersedes: tuple[str, ...] = ()  # ids of atoms this one replaces
    related: tuple[str, ...] = ()  # ids of atoms it goes with (both are needed)
    paths: tuple[str, ...] = ()  # globs of the code it is about
    status: str = "active"
    created: str | None = None  # YYYY-MM-DD; today when not given
    source: str | None = None  # where the text came from (imports: `path:line (format hash)`)
    project: str = ""  # the code project it is about: exported into that project only


@dataclass
class AddOutcome:
    """Where the atom went (or would go) and why; `findings` are formatted lines."""

    path: str
    id: str
    content: str
    written: bool = False
    pending_review: bool = False
    review_reason: str = ""  # why it waits in shared/_pending/, said to whoever wrote it
    findings: list[str] = field(default_factory=list)
    errors: int = 0
    score: float | None = None
    verdict: str | None = None
    explain: str | None = None
    similar: list[dict[str, Any]] = field(default_factory=list)
    contradicts: list[str] = field(default_factory=list)  # ids of live atoms it contradicts
    let_in: list[Any] = field(default_factory=list)  # those contradictions (audit.write)
    invisible: int = 0  # invisible characters that hid nothing, left out of the text

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "path": self.path,
            "id": self.id,
            "written": self.written,
            "pending_review": self.pending_review,
            "contradicts": self.contradicts,
        }
        if self.score is not None:
            out.update(
                score=self.score, verdict=self.verdict, explain=self.explain, similar=self.similar
            )
        out["findings"] = self.findings
        return out


SLUG_MAX = 60
# Words a phrase does not end on: an id cut before one of them ends where a phrase does.
_FUNCTION_TEXT = (
    "a an the to of by for in on at with and or but from into onto over under via as "
    "than that which who when while because before after since until unless if so is "
    "are was were be been it its their our your this these those not instead rather except"
)
_FUNCTION_WORDS = frozenset(_FUNCTION_TEXT.split())
# Where a clause ends: punctuation followed by a space, or an opening parenthesis.
_CLAUSE_END = re.compile(r"[.!?,;:](?=\s|$)|\s\(|\s[\u2014\u2013-]\s")


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _random_part(word: str) -> bool:
    """A word of a title that holds something drawn at random (`KEY=Zx9qL2…`, `glsa_ab12…`)."""
    return any(looks_random(part) for part in re.split(r"[=:@/`'\"]", word) if len(part) >= 16)


def _randomish(word: str) -> bool:
    """An id word (lower case) too long or too mixed to be a word: 20 characters and more, or
    10 and more with three digits and three letters."""
    digits = sum(c.isdigit() for c in word)
    return len(word) >= 20 or (len(word) >= 10 and digits >= 3 and len(word) - digits >= 3)


def slugify(title: str) -> str:
    """The title's words as an id of at most SLUG_MAX characters. A long title is cut where
    a clause ends (`…-to-argo-cd`, not `…-argo-cd-production-deploys-are`), else before a
    word a phrase does not end on, never after one (`…-never-by`)."""
    ascii_text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    # A token nothing recognised as a secret still never names a file: random-looking parts
    # are left out (`use-glsa-r8x2kq9…` was an id).
    ascii_text = " ".join(w for w in ascii_text.split(" ") if not _random_part(w))
    words = [w for w in _words(ascii_text) if not _randomish(w)]
    fit = 0
    while fit < len(words) and len("-".join(words[: fit + 1])) <= SLUG_MAX:
        fit += 1
    if fit == len(words):
        return "-".join(words)
    cut = 0
    for m in _CLAUSE_END.finditer(ascii_text):
        head = len(_words(ascii_text[: m.start()]))
        if 3 <= head <= fit:
            cut = head
    if not cut:
        cut = next((n for n in range(fit, 2, -1) if words[n] in _FUNCTION_WORDS), fit)
    while cut > 1 and words[cut - 1] in _FUNCTION_WORDS:
        cut -= 1
    return "-".join(words[:cut])


def id_base(title: str, text: str, atom_type: str) -> str:
    """An id for a new atom: the title's words; for a title in CJK script, whose words an
    ASCII id cannot spell, its Latin words (numbers alone say nothing) and a short hash."""
    digest = hashlib.sha1(text.encode()).hexdigest()[:8]  # noqa: S324 - a name, not security
    if not has_cjk(title):
        return slugify(title) or f"{atom_type}-{digest}"
    words = [w for w in slugify(title).split("-") if re.search(r"[a-z]", w)][:4]
    return "-".join([*words, digest]) if words else f"{atom_type}-{digest}"


def without_secrets(text: str) -> str:
    """`text` with every secret the gate would find replaced by `…`: ids, file names and
    titles are printed and committed, and must never carry one."""
    lines = text.split("\n")
    for hit in sorted(find_secrets(text), key=lambda h: (h.line, h.col), reverse=True):
        line = lines[hit.line - 1]
        start = end = hit.col - 1
        while end < len(line) and not line[end].isspace():
            end += 1
        lines[hit.line - 1] = line[:start] + "…" + line[end:]
    return "\n".join(lines)


def folder_of(scope: str, root: Path, user: str | None = None) -> str:
    if scope == "shared":
        return "shared"
    if scope == "episodic":
        # A session summary in the tree is recalled for nobody (issue 29): summaries are
        # written by the SessionEnd hook into .memkit/episodic/, this person's alone.
        raise UsageError(
            "scope 'episodic': session summaries are written by Claude Code's SessionEnd hook "
            "into .memkit/episodic/ (yours alone, never committed); use personal for a note "
            "of your own, shared for the team"
        )
    kind, _, name = scope.partition(":")
    if kind == "role" and re.fullmatch(r"[a-z0-9][a-z0-9-]*", name):
        return f"roles/{name}"
    if kind == "personal":
        user = name or user or identify(root).user
        if re.fullmatch(r"[a-z0-9][a-z0-9-]*", user):
            return f"personal/{user}"
    raise UsageError(f"scope {scope!r}: use shared, role:<name> or personal[:<user>]")


def _yaml_list(items: tuple[str, ...]) -> str:
    return "[" + ", ".join(json.dumps(i, ensure_ascii=False) for i in items) + "]"


@dataclass(frozen=True)
class _Batch:
    """What every draft checked together shares, read once rather than per draft: an import
    of thousands of rules must not pay for the identity, the list of ids or the index per
    rule."""

    root: Path
    config: Config
    identity: Any
    author: str
    taken: frozenset[str]
    sensitive: frozenset[str]

    @classmethod
    def read(cls, root: Path, config: Config) -> _Batch:
        return cls(
            root,
            config,
            identify(root),
            git_email(root),
            frozenset(id_from_path(p) for p in list_atom_files(root)),
            sensitive_kinds(config),
        )


def add_atom(
    root: Path,
    draft: Draft,
    *,
    dry_run: bool = False,
    config: Config | None = None,
    reserved: Collection[str] = (),
) -> AddOutcome:
    """Check `draft` as a commit would and write it unless something refuses it. `reserved`
    ids are treated as taken (drafts checked together and written afterwards)."""
    (outcome,) = check_drafts(root, [draft], config=config, reserved=reserved)
    if not outcome.errors and not dry_run:
        write_outcome(root, outcome)
        if outcome.let_in and not outcome.pending_review:
            remember(root, outcome.let_in)
    return outcome


def check_drafts(
    root: Path,
    drafts: Sequence[Draft],
    *,
    config: Config | None = None,
    reserved: Collection[str] = (),
) -> list[AddOutcome]:
    """Check `drafts` as a commit would, all at once, each against the repository as it
    stands (not against one another); nothing is written. Ids are handed out in order, each
    unlike the repository's, `reserved` and the earlier drafts' (a draft may name its own)."""

    config = config or load_config(root)
    batch = _Batch.read(root, config)
    planned = set(reserved)
    outcomes: list[AddOutcome] = []
    findings: list[list[Any]] = []
    atoms: list[Any] = []
    for draft in drafts:
        outcome = _planned(batch, draft, planned)
        planned.add(outcome.id)
        parsed = parse_atom_bytes(outcome.path, outcome.content.encode("utf-8"), config)
        found = list(parsed.findings)
        if outcome.invisible:
            found.append(
                Finding(
                    outcome.path,
                    1,
                    1,
                    "MK113",
                    f"{outcome.invisible} invisible character(s) between or inside words, as "
                    "pasted web text brings them, were left out of the atom",
                    Severity.WARNING,
                )
            )
        if parsed.atom is not None:
            found += run_content_checks(parsed.atom, outcome.content, config)
            atoms.append(parsed.atom)
        outcomes.append(outcome)
        findings.append(found)
    by_path = {o.path: i for i, o in enumerate(outcomes)}
    for result in gate_atoms(root, atoms, config) if atoms else []:
        i = by_path[result.atom.path]
        outcome = outcomes[i]
        findings[i] += result.findings
        outcome.score = result.score.score
        outcome.verdict = result.score.verdict
        if drafts[i].confidence is None and _earns_observed(
            drafts[i].text.strip(), drafts[i].type, result.score.verdict
        ):
            outcome.content = outcome.content.replace(
                "\nconfidence: tentative\n", "\nconfidence: observed\n", 1
            )
        outcome.explain = result.score.explain()
        outcome.similar = [
            {"id": m.id, "path": m.path, "similarity": round(m.similarity, 4)}
            for m in result.matches
        ]
    # Who may write where (MK201 another role's folder, MK202 another person's): refused
    # now, as the commit would refuse it.
    changes = [Change("A", o.path) for o in outcomes]
    for finding in judge_changes(root, changes, batch.identity, config):
        findings[by_path[finding.path]].append(finding)
    clean = [a for a in atoms if not any(f.is_error for f in findings[by_path[a.path]])]
    if clean:
        _route_contradictions(batch, clean, findings, outcomes, by_path)
    for draft, outcome, found in zip(drafts, outcomes, findings, strict=True):
        outcome.errors = sum(1 for f in found if f.is_error)
        shown = found
        if any(f.is_error and f.code in TEXT_REFUSALS for f in found):
            shown = _named_by_nothing_it_says(outcome, found, draft.text.strip(), draft.type)
        outcome.findings = [f.format() for f in shown]
    return outcomes


def _planned(batch: _Batch, draft: Draft, planned: Collection[str]) -> AddOutcome:
    """The file `draft` becomes: its id, folder (review for what needs it) and text."""
    raw = draft.text.strip()
    text = without_harmless(raw)  # pasted web text brings zero-width spaces: left out, said
    if not text:
        raise UsageError("TEXT is empty")
    shown = without_secrets(text)
    title = without_secrets(draft.title or title_of(shown)).strip().replace("\n", " ")
    folder = folder_of(draft.scope, batch.root, batch.identity.user)
    reason = ""
    if folder == "shared" and not batch.identity.is_management:
        if draft.type in batch.sensitive:
            reason = f"`{draft.type}` atoms from outside management wait for review"
        elif held := held_for_review(text, batch.config):
            # As the commit would hold it (MK204): a person reads it before every agent does.
            reason = f"it {held[0].what}: a person reads it before teammates' agents do"
    review = bool(reason)
    if review:
        folder = "shared/_pending"
    base = id_base(title, shown, draft.type)
    atom_id, n = base[:ID_MAX_LEN], 2
    while (
        atom_id in batch.taken
        or atom_id in planned
        or (batch.root / folder / f"{atom_id}.md").exists()
    ):
        atom_id, n = f"{base[: ID_MAX_LEN - 4]}-{n}", n + 1
    lines = [
        "---",
        f"id: {atom_id}",
        f"type: {draft.type}",
        f"confidence: {draft.confidence or 'tentative'}",
        f"created: {draft.created or dt.date.today().isoformat()}",
    ]
    if batch.author:
        lines.append(f"author: {batch.author}")
    if draft.triggers:
        lines.append(f"triggers: {_yaml_list(draft.triggers)}")
    if draft.paths:
        lines.append(f"paths: {_yaml_list(draft.paths)}")
    if draft.supersedes:
        lines.append(f"supersedes: {_yaml_list(draft.supersedes)}")
    if draft.related:
        lines.append(f"related: {_yaml_list(draft.related)}")
    if draft.status != "active":
        lines.append(f"status: {draft.status}")
    if draft.source:
        lines.append(f"source: {json.dumps(without_secrets(draft.source), ensure_ascii=False)}")
    if draft.project:
        lines.append(f"project: {json.dumps(without_secrets(draft.project), ensure_ascii=False)}")
    content = "\n".join([*lines, "---", f"# {title}", "", text, ""])
    outcome = AddOutcome(
        f"{folder}/{atom_id}.md", atom_id, content, pending_review=review, review_reason=reason
    )
    outcome.invisible = len(harmless(raw))
    return outcome


def _named_by_nothing_it_says(
    outcome: AddOutcome, findings: list[Any], text: str, atom_type: str
) -> list[Any]:
    """A text refused for what it says (a secret, `<private>` text, an instruction to the
    agent) is named by a digest only, and reported by those findings alone: the id, the file
    name and the quality line would quote it back (to a terminal, or to the model that sent
    it through MCP)."""

    folder = outcome.path.rsplit("/", 1)[0]
    atom_id = f"{atom_type}-{hashlib.sha1(text.encode()).hexdigest()[:8]}"  # noqa: S324
    outcome.id, outcome.path = atom_id, f"{folder}/{atom_id}.md"
    outcome.content, outcome.explain, outcome.similar = "", None, []
    return [dataclasses.replace(f, path=outcome.path) for f in findings if f.code in TEXT_REFUSALS]


def write_outcome(root: Path, outcome: AddOutcome) -> None:
    """Write an atom `add_atom` checked and refused nothing in; never over an existing file."""
    if (root / outcome.path).exists():
        raise MemkitError(f"{outcome.path} already exists")
    try:
        write_atomic(root / outcome.path, outcome.content)
    except OSError as exc:  # a full disk, a read-only folder: said, not a crash
        raise MemkitError(
            f"cannot write {outcome.path}: {exc.strerror or exc}; nothing was written (the "
            "write is atomic: no half file is left)"
        ) from exc
    outcome.written = True


def _earns_observed(text: str, atom_type: str, verdict: str) -> bool:
    """The pitfall fast path at write time (Atomic Memory V4.1): a failure mode that passes
    the gate starts as observed, not tentative; it is the memory most worth trusting early."""
    return verdict == "pass" and is_pitfall(text, atom_type)


def _route_contradictions(
    batch: _Batch,
    atoms: Sequence[Any],
    findings: list[list[Any]],
    outcomes: list[AddOutcome],
    by_path: dict[str, int],
) -> None:
    """A draft that contradicts a live atom is reported; one that must not become a second
    live truth (memkit.audit.write) is written to shared/_pending/ for review instead."""

    for conflict in conflicts(batch.root, atoms, batch.config, identity=batch.identity):
        atom = conflict.atom
        outcome = outcomes[by_path[atom.path]]
        outcome.contradicts.append(conflict.other_id)
        outcome.let_in.append(conflict)
        if conflict.route and not outcome.path.startswith(f"{PENDING}/"):
            outcome.path = f"{PENDING}/{Path(atom.path).name}"
            outcome.pending_review = True
            outcome.review_reason = (
                f"it contradicts `{conflict.other_id}`, and must not become a second truth"
            )
        where = " sent to review;" if conflict.route else ""
        findings[by_path[atom.path]].append(
            Finding(
                atom.path,
                1,
                1,
                "MK105",
                f"contradicts `{conflict.other_id}` ({conflict.other_path}): "
                f"{conflict.reason};{where} add it with `--supersedes {conflict.other_id}` "
                "if it replaces that atom",
                Severity.WARNING,
            )
        )
