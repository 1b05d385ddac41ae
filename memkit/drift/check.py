"""Each claim of each atom held against a code project: gone, changed, confirmed, or not
checkable. One function (`check`), for a whole memory at once.

A claim is looked up in the tree first (`_look`): found as stated, found with another value,
missing where it should be, or not located at all. Missing is not yet "gone": a path an atom
names that this project never had is about something else. The past decides (`Past`):
- the project's history (`memkit drift`, its commit hook): a path the history held, a target
  or key a commit took out of its file (checked in the file as it was before that commit);
- the base of a pull request (`memkit drift --base`): what the base had and the head has not.
A value found different in a config file the atom names, or a pinned version that differs,
is changed at once: the file says so. A value found only by searching the project's config
files is changed only when the file held the atom's value once; else it is another setting
of the same name, and not checkable.

Claims are checked once each however many atoms state them; files are read in batches.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memkit.drift import configs, scripts, versions
from memkit.drift.claims import COMMAND, GLOB, PATH, VALUE, VERSION, Claim
from memkit.drift.tree import Blobs, History, Tree
from memkit.files import write_atomic
from memkit.globs import glob_re

CONFIRMED, CHANGED, GONE, UNCHECKABLE = "confirmed", "changed", "gone", "not checkable"
STATES = (GONE, CHANGED, CONFIRMED, UNCHECKABLE)
STALE = (GONE, CHANGED)
_FOUND, _DIFFERS, _MISSING, _UNLOCATED = "found", "differs", "missing", "unlocated"
# Config files searched for a key no file was named for (lock files are not settings).
CONFIG_SPECS = [
    ":(glob)**/*.yaml",
    ":(glob)**/*.yml",
    ":(glob)**/*.toml",
    ":(glob)**/*.json",
    ":(glob)**/*.ini",
    ":(glob)**/*.cfg",
    ":(glob)**/*.conf",
    ":(glob)**/*.properties",
    ":(glob)**/.env*",
    ":(glob)**/*.env",
    ":(glob)**/Dockerfile*",
    ":(exclude,glob)**/*lock*",
    ":(exclude,glob)**/node_modules/**",
]
_SETTING_NAME = re.compile(r".*[_.-].*|[A-Z][A-Z0-9_]+|[a-z]+[A-Z]\w*")
MAX_EVIDENCE = 400  # files whose history one run reads (a `git log -p` each); past it, none
VERDICTS_FORMAT = 1
MAX_TRIED = 8  # commits of one file that took out a line naming it, looked at before them


@dataclass(frozen=True)
class Verdict:
    claim: Claim
    state: str
    now: str = ""  # what the project holds now: a value, a version, where a path went
    file: str = ""  # the project file that says so
    line: int = 0  # in that file (0: none)
    since: str = ""  # the commit that changed it ("1a2b3c4 2026-05-01"), when known
    why: str = ""  # for a claim not checkable: why
    said: str = ""  # in words, once worked out (`memkit.drift.say.describe`)

    @property
    def stale(self) -> bool:
        return self.state in STALE


@dataclass
class Look:
    """What the tree says of one claim."""

    state: str
    now: str = ""
    file: str = ""
    line: int = 0
    files: list[str] = field(default_factory=list)  # where it should be (missing)
    searched: bool = False  # a value found by searching, not in a file the atom named
    why: str = ""


class Past:
    """What a project once held: its history, or the base of a pull request."""

    def close(self) -> None:
        """Let go of what reading it holds open."""

    def gone(self, claim: Claim, look: Look, tree: Tree) -> Verdict | None:
        raise NotImplementedError

    def changed(self, claim: Claim, look: Look, tree: Tree) -> Verdict | None:
        raise NotImplementedError


def _norm(value: str) -> str:
    value = value.strip().strip("\"'").strip()
    low = value.lower()
    if low in ("true", "yes", "on"):
        return "true"
    if low in ("false", "no", "off"):
        return "false"
    if low in ("null", "none", "~", ""):
        return "null"
    # A number as written ("3.10" is not "3.1": versions are written as numbers too), its
    # unit aside ("30s" and "30" are one setting written two ways).
    number = re.fullmatch(r"(-?\d+(?:\.\d+)?)\s*(?:ms|s|m|h|d|kb|mb|gb|%)?", low)
    if number:
        return number.group(1)
    return low


def _items(value: str) -> frozenset[str] | None:
    """A claimed list (`[3.9, 3.10]`) as the set of its values, else None."""
    if value.startswith("[") and value.endswith("]"):
        return frozenset(_norm(i) for i in value[1:-1].split(",") if i.strip())
    return None


def same_value(a: str, b: str) -> bool:
    return _norm(a) == _norm(b)


def _line_of(text: str | None, *words: str) -> int:
    """The first line of `text` holding every one of `words` (1-based), else 0."""
    for number, raw in enumerate((text or "").splitlines(), 1):
        if all(w in raw for w in words):
            return number
    return 0


class _Checker:
    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self._settings: dict[str, configs.Settings] = {}
        self._sorted: list[str] | None = None
        self._defined: dict[tuple[str, str], set[str]] = {}
        self._pins: dict[str, list[versions.Pinned]] = {}
        self.located: dict[str, set[str]] = {}  # searched key -> config files holding it

    def settings(self, path: str) -> configs.Settings:
        if path not in self._settings:
            text = self.tree.read(path)
            self._settings[path] = {} if text is None else configs.read_settings(path, text)
        return self._settings[path]

    def prepare(self, claims: Iterable[Claim]) -> None:
        """Batch what the claims will read: named config files, searched keys, definitions."""
        named: list[str] = []
        keys: set[str] = set()
        for claim in claims:
            if claim.kind == VALUE:
                if claim.path:
                    named += self.tree.find(claim.path)
                elif _SETTING_NAME.fullmatch(claim.key):
                    keys.add(claim.key.rsplit(".", 1)[-1])
        self.located = self.tree.grep(sorted(keys), CONFIG_SPECS) if keys else {}
        self.tree.read_many(named + sorted({p for files in self.located.values() for p in files}))

    def look(self, claim: Claim) -> Look:
        kind = claim.kind
        if kind == PATH:
            found = self.tree.find(claim.path)
            return Look(_FOUND, file=found[0]) if found else Look(_MISSING, files=[claim.path])
        if kind == GLOB:
            return (
                Look(_FOUND)
                if self.glob_matches(claim.path)
                else Look(_MISSING, files=[claim.path])
            )
        if kind == VALUE:
            return self.value(claim)
        if kind == COMMAND:
            return self.command(claim)
        if kind == VERSION:
            return self.version(claim)
        return Look(_UNLOCATED)

    def glob_matches(self, glob: str) -> bool:
        return any(True for _ in glob_files(self._files(), glob))

    def _files(self) -> list[str]:
        if self._sorted is None:
            self._sorted = sorted(self.tree.files)
        return self._sorted

    def value(self, claim: Claim) -> Look:
        if claim.path:
            files = self.tree.find(claim.path)
            if not files:
                return Look(_UNLOCATED, why=f"`{claim.path}` is not in the project")
            searched = False
        else:
            leaf = claim.key.rsplit(".", 1)[-1]
            if not _SETTING_NAME.fullmatch(claim.key):
                return Look(_UNLOCATED, why="no config file is named, and the key is a common word")
            files = sorted(self.located.get(leaf, ()))
            searched = True
        held: dict[str, tuple[str, str]] = {}  # value -> (file, key)
        parsed = False
        wanted = _items(claim.value)
        for path in files:
            settings = self.settings(path)
            parsed = parsed or bool(settings)
            for name, values in configs.matching(
                settings, claim.key, lists=wanted is not None
            ).items():
                if wanted is not None:  # a list: the same values, in any order
                    found = frozenset(_norm(v) for v in values)
                    shown = "[" + ", ".join(values) + "]"
                    if found == wanted:
                        return Look(
                            _FOUND,
                            shown,
                            path,
                            _line_of(self.tree.read(path), name.rsplit(".", 1)[-1]),
                        )
                    held.setdefault(shown, (path, name))
                    continue
                for value in values:
                    held.setdefault(_norm(value), (path, name))
                    if same_value(value, claim.value):
                        return Look(
                            _FOUND,
                            value,
                            path,
                            _line_of(self.tree.read(path), name.rsplit(".", 1)[-1]),
                        )
        if not held:
            if searched or not parsed:
                return Look(_UNLOCATED, why="the key is in no config file of the project")
            return Look(_MISSING, files=files)
        if len(held) > 1:
            return Look(_UNLOCATED, why="the project sets it to several values")
        ((raw, (path, name)),) = held.items()
        if wanted is None:
            raw = configs.matching(self.settings(path), claim.key)[name][0]
        leaf = name.rsplit(".", 1)[-1]
        return Look(_DIFFERS, raw, path, _line_of(self.tree.read(path), leaf), searched=searched)

    def defined(self, tool: str, path: str) -> set[str]:
        key = (tool, path)
        if key not in self._defined:
            text = self.tree.read(path)
            names = scripts.defined(tool, path, text) if text is not None else set()
            if tool == "make" and text is not None:
                for included in scripts.includes(self.tree, path, text):
                    more = self.tree.read(included)
                    names |= scripts.defined(tool, included, more) if more else set()
            self._defined[key] = names
        return self._defined[key]

    def command(self, claim: Claim) -> Look:
        files, expected, own = scripts.defining_files(self.tree, claim.tool, claim.path)
        self.tree.read_many(files)
        for path in files:
            if scripts.covers(claim.tool, self.defined(claim.tool, path), claim.key, patterns=own):
                return Look(_FOUND, file=path)
        # Where the folder's own file was (it may be gone), then the others that could say.
        where = list(dict.fromkeys([*(p for p in expected if p not in self.tree.files), *files]))
        if not files:
            return Look(_MISSING, files=where, why="no file defines it")
        if claim.tool in scripts.RUNNER_TOOLS:
            # `uv run pytest`: a program of the environment, not a script of the project.
            return Look(_MISSING, files=where, why="not a script of the project")
        if claim.tool == "entry":
            # `docker compose up`, `httpie`: most programs are no project's own.
            return Look(_MISSING, files=where, why="not a program the project defines")
        return Look(_MISSING, files=where)

    def version(self, claim: Claim) -> Look:
        if claim.key not in self._pins:
            self._pins[claim.key] = versions.pinned(self.tree, claim.key)
        pins = self._pins[claim.key]
        if not pins:
            return Look(
                _MISSING,
                files=versions.manifests(self.tree, claim.key),
                why=f"no manifest of the project names {claim.key}",
            )
        said = [(versions.compare(claim.value, claim.tool == ">=", pin), pin) for pin in pins]
        agree = [pin for verdict, pin in said if verdict == versions.CONFIRMED]
        if agree:
            return Look(_FOUND, agree[0].spec, agree[0].file)
        differ = [pin for verdict, pin in said if verdict == versions.CHANGED]
        if differ:
            pin = differ[0]
            return Look(_DIFFERS, pin.spec, pin.file, _line_of(self.tree.read(pin.file), pin.spec))
        return Look(_UNLOCATED, why="the project's range allows it without saying which")


def glob_files(files: Sequence[str], glob: str) -> Iterable[str]:
    """The sorted `files` a `paths:` glob matches (`**` any folders, `*` within one)."""
    # A glob with no wildcard at its end names a folder too: `src/net` holds `src/net/conn.py`.
    exact = glob_re(glob)
    folder = glob_re(glob.rstrip("/") + "/**") if not glob.endswith("*") else None
    star = min((i for i in (glob.find("*"), glob.find("?")) if i >= 0), default=len(glob))
    prefix = glob[:star].rsplit("/", 1)[0] + "/" if "/" in glob[:star] else ""
    at = bisect.bisect_left(files, prefix)
    for path in files[at:]:
        if not path.startswith(prefix):
            break
        if exact.match(path) or (folder is not None and folder.match(path)):
            yield path


def check(claims: Sequence[Claim], tree: Tree, past: Past) -> dict[Claim, Verdict]:
    """The verdict on each claim (claims equal but for where an atom writes them are checked
    once: the caller maps them back)."""
    checker = _Checker(tree)
    distinct = list(dict.fromkeys(c.bare for c in claims))
    checker.prepare(distinct)
    out: dict[Claim, Verdict] = {}
    try:
        for claim in distinct:
            look = checker.look(claim)
            out[claim] = _verdict(claim, look, tree, past)
    finally:
        past.close()
    return out


def _verdict(claim: Claim, look: Look, tree: Tree, past: Past) -> Verdict:
    if look.state == _FOUND:
        return Verdict(claim, CONFIRMED, look.now, look.file, look.line)
    if look.state == _UNLOCATED:
        return Verdict(claim, UNCHECKABLE, why=look.why or "not located in the project")
    if look.state == _DIFFERS:
        found = past.changed(claim, look, tree)
        if found is not None:
            return found
        return Verdict(
            claim,
            UNCHECKABLE,
            look.now,
            look.file,
            look.line,
            why="the project's setting of that name never held this value",
        )
    found = past.gone(claim, look, tree)
    if found is not None:
        return found
    return Verdict(
        claim, UNCHECKABLE, why=look.why or "not in the project, nor ever in its history"
    )


_TOKEN = re.compile(r"[\w@][\w.@/+-]*")


def _token(text: str) -> str:
    """The word of `text` a file's history is indexed by (`memkit.drift.tree._FileLog`)."""
    words = [w.rstrip(".") for w in _TOKEN.findall(text)]
    return max(words, key=len) if words else text


class HistoryPast(Past):
    """The project's own history up to the checked tree."""

    def __init__(self, history: History, cache: Path | None = None) -> None:
        self.history = history
        self.budget = MAX_EVIDENCE
        self.blobs = Blobs(history.tree.root)
        self._manifests: list[str] | None = None
        # What the history said of each missing or differing claim at the commit it was
        # checked: still so while the files it depends on were not touched since.
        self.cache = cache
        self._known: dict[str, list[Any]] | None = None
        self._fresh: dict[str, list[Any]] = {}

    def close(self) -> None:
        self.blobs.close()
        commit = self.history.tree.commit
        if self.cache is None or commit is None or self._known is None:
            return
        data = {"format": VERDICTS_FORMAT, "commit": commit, "verdicts": self._fresh}
        try:
            write_atomic(self.cache, json.dumps(data), durable=False, mode=0o600)
        except OSError:
            return  # a read-only .memkit/: worked out again next time

    def _load(self) -> dict[str, list[Any]]:
        if self._known is None:
            self.history.ever()  # where the walk started: `since`, `touched`
            self._known = {}
            try:
                data = json.loads(self.cache.read_text(encoding="utf-8")) if self.cache else {}
            except (OSError, ValueError):
                data = {}
            if (
                isinstance(data, dict)
                and data.get("format") == VERDICTS_FORMAT
                and data.get("commit") == self.history.since
            ):
                verdicts = data.get("verdicts")
                self._known = verdicts if isinstance(verdicts, dict) else {}
        return self._known

    def _reusable(self, claim: Claim, look: Look) -> bool:
        touched = self.history.touched
        if not touched:
            return True
        names = {p.rsplit("/", 1)[-1] for p in touched}
        depends = [*look.files, look.file, claim.path]
        return not any(f and (f in touched or f.rsplit("/", 1)[-1] in names) for f in depends)

    def _memo(
        self, what: str, claim: Claim, look: Look, work: Callable[[], Verdict | None]
    ) -> Verdict | None:
        key = json.dumps(
            [
                what,
                claim.kind,
                claim.path,
                claim.key,
                claim.value,
                claim.tool,
                look.state,
                look.now,
                look.file,
                look.files,
            ]
        )
        hit = self._load().get(key)
        if hit is not None and self._reusable(claim, look):
            verdict = Verdict(claim, *hit) if hit else None
        else:
            verdict = work()
        self._fresh[key] = (
            []
            if verdict is None
            else [
                verdict.state,
                verdict.now,
                verdict.file,
                verdict.line,
                verdict.since,
                verdict.why,
            ]
        )
        return verdict

    def gone(self, claim: Claim, look: Look, tree: Tree) -> Verdict | None:
        return self._memo("gone", claim, look, lambda: self._gone(claim, look, tree))

    def changed(self, claim: Claim, look: Look, tree: Tree) -> Verdict | None:
        return self._memo("changed", claim, look, lambda: self._changed(claim, look))

    def _spend(self) -> bool:
        self.budget -= 1
        return self.budget >= 0

    def _taken(
        self, path: str, word: str, held: Callable[[str], bool], pattern: str = ""
    ) -> tuple[str, str] | None:
        """The newest commit that took a line holding `word` (and matching `pattern`) out of
        `path` while the file before it held what `held(text)` tests."""
        if path not in self.history.logged() and not self._spend():
            return None
        found = re.compile(pattern) if pattern else None
        tried = 0
        for short, date, removed in self.history.file_log(path).holding(_token(word)):
            if found is not None and not any(found.search(line) for line in removed):
                continue
            tried += 1
            if tried > MAX_TRIED:
                return None
            before = self.blobs.read(f"{short}^:{path}")
            if before is not None and held(before):
                return short, date
        return None

    def _gone_manifests(self, tree: Tree) -> list[str]:
        if self._manifests is None:
            self._manifests = sorted(
                p for p in self.history.ever() - tree.files if versions.is_manifest(p, "")
            )
        return self._manifests

    def _gone(self, claim: Claim, look: Look, tree: Tree) -> Verdict | None:
        history = self.history
        if claim.kind in (PATH, GLOB):
            if claim.kind == GLOB:
                ever = sorted(history.ever() - tree.files)
                if not any(True for _ in glob_files(ever, claim.path)):
                    return None
                return Verdict(
                    claim, GONE, why="nothing the glob matches is in the project any more"
                )
            once = history.once(claim.path)
            if not once:
                return None
            removal = history.removal(once[0])
            if once[0] in tree.renames:  # renamed by the change being committed
                return Verdict(claim, GONE, tree.renames[once[0]], once[0])
            since = f"{removal.commit} {removal.date}" if removal else ""
            return Verdict(claim, GONE, removal.renamed_to if removal else "", once[0], since=since)
        if claim.kind == COMMAND:
            for path in look.files:
                if path not in tree.files and claim.tool != "entry":
                    # The file that defined it is gone (a program's manifest may be gone
                    # while another declares it: its history is read as the others' are).
                    if history.once(path):
                        return Verdict(claim, GONE, file=path, why=f"`{path}` is gone")
                    continue
                pattern = ""
                if claim.tool == "entry":  # `name = module:func`, `"name": "./bin.js"`
                    pattern = rf"""^\s*["']?{re.escape(claim.key)}["']?\s*[=:]"""
                taken = self._taken(path, claim.key, _defines(claim, path), pattern)
                if taken is not None:
                    return Verdict(claim, GONE, file=path, since=" ".join(taken))
            return None
        if claim.kind == VERSION:
            # A dependency taken out of every manifest: a manifest of the history pinned it.
            files = look.files + self._gone_manifests(tree)
            for path in files[:12]:
                taken = self._taken(path, claim.key, _pins(claim, path))
                if taken is not None:
                    return Verdict(
                        claim, GONE, file=path, since=" ".join(taken), why="no longer a dependency"
                    )
            return None
        if claim.kind == VALUE:
            key = claim.key.rsplit(".", 1)[-1]
            for path in look.files:
                taken = self._taken(path, key, _sets(claim, path))
                if taken is not None:
                    return Verdict(claim, GONE, file=path, since=" ".join(taken))
        return None

    def _changed(self, claim: Claim, look: Look) -> Verdict | None:
        if claim.kind == VERSION or (claim.kind == VALUE and not look.searched):
            since = ""
            if claim.kind == VALUE:
                taken = self._taken(look.file, claim.value, lambda text: True)
                since = " ".join(taken) if taken else ""
            return Verdict(claim, CHANGED, look.now, look.file, look.line, since=since)
        wanted = _items(claim.value)

        def held(text: str) -> bool:
            found = configs.matching(
                configs.read_settings(look.file, text), claim.key, lists=wanted is not None
            )
            if wanted is not None:
                return any(
                    frozenset(_norm(v) for v in values) == wanted for values in found.values()
                )
            return any(same_value(v, claim.value) for values in found.values() for v in values)

        first = claim.value.strip("[]").split(",")[0].strip() if wanted is not None else claim.value
        taken = self._taken(look.file, first.strip("\"'"), held)
        if taken is None:
            return None
        return Verdict(claim, CHANGED, look.now, look.file, look.line, since=" ".join(taken))


def _defines(claim: Claim, path: str) -> Callable[[str], bool]:
    """Whether a version of the file `path` defines the claim's target or script."""

    def held(text: str) -> bool:
        return scripts.covers(claim.tool, scripts.defined(claim.tool, path, text), claim.key)

    return held


def _pins(claim: Claim, path: str) -> Callable[[str], bool]:
    """Whether a version of the manifest `path` pins the claim's package."""

    def held(text: str) -> bool:
        return bool(versions.pinned_in(path, text, claim.key))

    return held


def _sets(claim: Claim, path: str) -> Callable[[str], bool]:
    """Whether a version of the config file `path` sets the claim's key."""

    def held(text: str) -> bool:
        settings = configs.read_settings(path, text)
        return bool(configs.matching(settings, claim.key, lists=_items(claim.value) is not None))

    return held


class BasePast(Past):
    """The base of a pull request: stale by this change is what the base confirmed."""

    def __init__(self, base: Tree) -> None:
        self.base = _Checker(base)
        self.prepared = False

    def _confirmed(self, claim: Claim) -> Look | None:
        look = self.base.look(claim)
        return look if look.state == _FOUND else None

    def gone(self, claim: Claim, look: Look, tree: Tree) -> Verdict | None:
        before = self._confirmed(claim)
        if before is None:
            return None
        renamed = ""
        if claim.kind == PATH and before.file:
            renamed = _renamed(tree, before.file)
        return Verdict(
            claim,
            GONE,
            renamed,
            before.file or (look.files[0] if look.files else ""),
            since="this change",
        )

    def changed(self, claim: Claim, look: Look, tree: Tree) -> Verdict | None:
        if self._confirmed(claim) is None:
            return None
        return Verdict(claim, CHANGED, look.now, look.file, look.line, since="this change")


class ChainPast(Past):
    """Several pasts asked in turn: a commit being made is judged against what HEAD held
    (this commit's doing), then against the history."""

    def __init__(self, *pasts: Past) -> None:
        self.pasts = pasts

    def gone(self, claim: Claim, look: Look, tree: Tree) -> Verdict | None:
        return next((v for p in self.pasts if (v := p.gone(claim, look, tree)) is not None), None)

    def changed(self, claim: Claim, look: Look, tree: Tree) -> Verdict | None:
        return next(
            (v for p in self.pasts if (v := p.changed(claim, look, tree)) is not None), None
        )

    def close(self) -> None:
        for past in self.pasts:
            past.close()


def _renamed(tree: Tree, path: str) -> str:
    """Where a file of the base went in `tree` (`Tree.renames`, from the change's diff)."""
    return tree.renames.get(path, "")
