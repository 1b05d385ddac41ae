"""What the checks of one atom file found, kept by the file's blob across runs.

`memkit validate`, the pre-commit hook and the index build all judge each atom file on its
own (the format checks of `memkit.atom.read`, the secret and prompt-injection scans: most of
their time), then across files (references, ids). The per-file part depends only on the
file's bytes, its path (the id is the file name, the scope its folder) and the settings, so
its result is kept here, keyed by path and git blob id, and a later run skips every file it
has seen: validate after a build, the build after a commit's checks, validate after an edit
of one atom.

`.memkit/verdicts/<stamp>/<xx>.json` holds, for each (path, blob) whose blob id starts with
the hex digits `xx`, the findings and the few fields the cross-file checks read (`Summary`).
The stamp names what produced them: memkit's version and the stat of its own source files
(an edited checkout is a different checker), the content checks registered, and the
settings the atoms were judged by (a CI run judges by the base's memkit.yaml); shards of
another stamp are not read, and the next save removes them. Each shard is written
atomically, only where `.memkit/` exists (a repository that was never indexed keeps no
cache), pruned to the files that exist; losing or damaging one costs only time.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import memkit
from memkit.admission.content import registered
from memkit.admission.decide import file_findings
from memkit.atom.read import read_atom
from memkit.config import Config
from memkit.files import write_atomic
from memkit.findings import Finding, Severity

if TYPE_CHECKING:
    from memkit.atom.read import ParsedAtom

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"orjson"}


log = logging.getLogger(__name__)
FOLDER = "verdicts"
FORMAT = 1


@dataclass(frozen=True)
class Summary:
    """What the checks across files read of an atom (`memkit.admission.decide.Referring`,
    and the status an older atom's `supersedes` check looks at)."""

    path: str
    id: str
    status: str
    scope: str
    pending: bool
    related: tuple[str, ...]
    supersedes: tuple[str, ...]
    superseded_by: tuple[str, ...]
    key_lines: Mapping[str, int]

    def line_of(self, key: str) -> int:
        return self.key_lines.get(key, 1)

    @property
    def is_active(self) -> bool:
        return self.status == "active" and not self.pending


@dataclass(frozen=True)
class Verdict:
    """One file judged on its own: every finding (errors and warnings), and its summary when
    it parsed into an atom."""

    findings: tuple[Finding, ...]
    atom: Summary | None

    @property
    def codes(self) -> list[str]:
        return sorted({f.code for f in self.findings if f.is_error})


def summary_of(atom: Any) -> Summary:
    """An `Atom`'s summary (only the reference keys' lines are kept)."""
    keys = ("id", "related", "supersedes", "superseded_by")
    return Summary(
        atom.path,
        atom.id,
        atom.status,
        atom.scope,
        atom.pending,
        tuple(atom.related),
        tuple(atom.supersedes),
        tuple(atom.superseded_by),
        {k: atom.key_lines[k] for k in keys if k in atom.key_lines},
    )


def _to_json(verdict: Verdict) -> list[Any]:
    findings = [[f.line, f.col, f.code, f.message, f.severity.value] for f in verdict.findings]
    atom = verdict.atom
    if atom is None:
        return [findings, None]
    fields = dataclasses.asdict(atom)
    fields["key_lines"] = dict(atom.key_lines)
    return [findings, fields]


def _from_json(path: str, raw: Any) -> Verdict | None:
    try:
        found, atom = raw
        findings = tuple(
            Finding(path, int(line), int(col), str(code), str(message), Severity(severity))
            for line, col, code, message, severity in found
        )
        summary = None
        if atom is not None:
            summary = Summary(
                path,
                str(atom["id"]),
                str(atom["status"]),
                str(atom["scope"]),
                bool(atom["pending"]),
                tuple(atom["related"]),
                tuple(atom["supersedes"]),
                tuple(atom["superseded_by"]),
                {str(k): int(v) for k, v in atom["key_lines"].items()},
            )
    except (TypeError, ValueError, KeyError):
        return None
    return Verdict(findings, summary)


def _code_stamp() -> str:
    """memkit's version and the size and mtime of every source file of the package (and of
    the secret catalogue, `memkit/safety/secret_formats.json`): a release, or an edit in a
    checkout, judges anew."""
    digest = hashlib.sha1(memkit.__version__.encode())  # noqa: S324  (a cache key)
    package = Path(memkit.__file__).parent
    for source in sorted([*package.rglob("*.py"), *package.glob("safety/*.json")]):
        try:
            stat = source.stat()
        except OSError:
            continue
        digest.update(f"{source.relative_to(package)}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()


def stamp(config: Config) -> str:
    """What a verdict was reached under: the code, the content checks registered, and the
    settings (all of memkit.yaml: limits, the injection setting, allowed phrases, …)."""
    settings = json.dumps(
        {
            f.name: dict(getattr(config, f.name)) if f.name == "raw" else getattr(config, f.name)
            for f in dataclasses.fields(config)
        },
        sort_keys=True,
        default=str,
    )
    text = "\n".join((_code_stamp(), *registered(), settings))
    return hashlib.sha1(text.encode("utf-8", "surrogateescape")).hexdigest()  # noqa: S324


class Verdicts:
    """The verdicts of one repository under one stamp; `get` what is known, `put` what was
    found, `save` once at the end. Kept in shards by the blob's first two hex digits, read
    when first asked: a refresh after a few edits reads and writes a few small files, not
    the verdicts of the whole repository."""

    def __init__(self, root: Path, config: Config) -> None:
        self.root = root
        self.stamp = stamp(config)
        self._shards: dict[str, dict[str, Any]] = {}
        self._new: dict[str, dict[str, Verdict]] = {}

    @property
    def folder(self) -> Path:
        """Where this stamp's shards are (`.memkit/verdicts/<stamp>/<xx>.json`)."""
        return self.root / ".memkit" / FOLDER / self.stamp[:20]

    def _shard(self, name: str) -> dict[str, Any]:
        known = self._shards.get(name)
        if known is None:
            known = {}
            try:
                data = _loads((self.folder / f"{name}.json").read_bytes())
            except (OSError, ValueError):
                data = None
            if isinstance(data, dict) and data.get("format") == FORMAT:
                found = data.get("files")
                known = found if isinstance(found, dict) else {}
            self._shards[name] = known
        return known

    def get(self, path: str, blob: str | None) -> Verdict | None:
        if blob is None or len(blob) < 2:
            return None
        key = f"{path}\t{blob}"
        found = self._new.get(blob[:2], {}).get(key)
        if found is not None:
            return found
        raw = self._shard(blob[:2]).get(key)
        return None if raw is None else _from_json(path, raw)

    def put(self, path: str, blob: str | None, verdict: Verdict) -> None:
        if blob is not None and len(blob) >= 2:
            self._new.setdefault(blob[:2], {})[f"{path}\t{blob}"] = verdict

    def save(self, manifest: Mapping[str, str]) -> None:
        """Write the shards that learnt something, each keeping what it knows of the files
        in `manifest` (path -> blob), when `.memkit/` exists; drop other stamps' shards."""
        if not self._new or not self.folder.parent.parent.is_dir():
            return

        current: dict[str, set[str]] = {name: set() for name in self._new}
        for path, blob in manifest.items():
            if blob[:2] in current:
                current[blob[:2]].add(f"{path}\t{blob}")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            for name, new in sorted(self._new.items()):
                files = {k: v for k, v in self._shard(name).items() if k in current[name]}
                files.update({k: _to_json(v) for k, v in new.items() if k in current[name]})
                data = {"format": FORMAT, "files": files}
                write_atomic(self.folder / f"{name}.json", _dumps(data), durable=False)
                self._shards[name] = files
        except OSError as exc:  # a read-only checkout: the checks just run again next time
            log.info("cannot keep the checks' results in %s: %s", self.folder, exc)
            return
        self._new = {}
        self._drop_other_stamps()

    def _drop_other_stamps(self) -> None:
        for other in self.folder.parent.iterdir():
            if other.name != self.folder.name and other.is_dir():
                shutil.rmtree(other, ignore_errors=True)


def _loads(data: bytes) -> Any:
    try:
        import orjson
    except ImportError:  # pragma: no cover - orjson is a dependency
        return json.loads(data)
    return orjson.loads(data)


def _dumps(data: Any) -> bytes:
    try:
        import orjson
    except ImportError:  # pragma: no cover
        return json.dumps(data, ensure_ascii=False).encode("utf-8")
    return orjson.dumps(data)


def judge(root: Path, relpath: str, config: Config) -> tuple[ParsedAtom, Verdict]:
    """Parse one file and run every check of it alone: the one parse serves the format
    checks, the secret and injection scans, and (the `ParsedAtom`) the index."""
    parsed = read_atom(root, relpath, config)
    atom = summary_of(parsed.atom) if parsed.atom is not None else None
    return parsed, Verdict(tuple(file_findings(parsed, config)), atom)
