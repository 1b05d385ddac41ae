"""Where the index lives and how generations are published.

`.memkit/index/CURRENT` names the live generation folder (`gen-000042/`: tantivy files, the
header meta.json and the parts of the atom table and vectors it names, `memkit.index.parts`).
A build writes a new generation and then replaces CURRENT with an atomic rename, so a reader
sees either the old generation or the new one, never half of one. One writer at a time holds
`.memkit/index/write.lock` (flock); readers take no lock.

Each generation ends with `checksums.json`: a build id (unique to this build, which caches
are keyed by: a rebuilt `gen-000001` is not the old one) and every file's size and CRC-32. A
reader checks the sizes on open (a truncated file) and the CRCs of files changed after the
seal, the engine, `memkit index` and `memkit doctor` the CRCs too (a damaged one); what fails is
rebuilt, not trusted.

A generation is trusted only when this clone built it: the seal carries an HMAC under a key
of this clone's, kept in its git folder (`.git/memkit-seal.key`), where neither a pull nor a
checkout can write. A generation that came from anywhere else (force-added into git by a
teammate, with CRCs re-sealed and the real atoms' blob hashes) fails it and is rebuilt from
the atom files: every entry's text is re-derived from the blob it names, here.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import hmac
import json
import os
import shutil
import uuid
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from memkit.files import memkit_dir, write_atomic

# Imported inside functions only, each for a reason tests/lazy_imports_test.py checks.
__lazy_modules__ = {"orjson"}


# 2: entries carry `expires` and `author`, and meta `refused`/`held` (issue 13). A generation of
# another format is rebuilt, never read: an older memkit indexed what validation now refuses.
# 3: prompt injection (MK112) refuses by default (issue 28): a generation built before it may
# hold text aimed at the agent.
# 4: the atom table and vectors in parts (`memkit.index.parts`; issue 33), meta.json a header.
# 5: every tantivy field but `cjk` stored, so that a refresh can re-add a document as it was
# (`memkit.index.segments`).
# 6: CJK text folded to simplified Chinese (`memkit.index.fold`), the table in `fold.marshal`.
FORMAT = 6
CHECKSUMS = "checksums.json"
KEEP_OLD = 2  # previous generations kept for readers that still have them open


def index_dir(root: Path) -> Path:
    return root / ".memkit" / "index"


def _files(gen: Path) -> list[str]:
    """The generation's files, relative, except tantivy's lock files and the checksums."""
    out = []
    for folder, _dirs, names in os.walk(gen):
        for name in names:
            rel = os.path.relpath(os.path.join(folder, name), gen)  # noqa: PTH118
            if not name.endswith(".lock") and rel != CHECKSUMS and not name.startswith(".~"):
                out.append(rel.replace(os.sep, "/"))
    return sorted(out)


def _crc(path: Path) -> int:
    crc = 0
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            crc = zlib.crc32(chunk, crc)
    return crc


KEY_NAME = "memkit-seal.key"


def _git_dir(root: Path) -> Path | None:
    """The git folder of the repository `root` is in (a worktree's own), or None."""
    for folder in (root, *root.parents):
        dot = folder / ".git"
        if dot.is_dir():
            return dot
        if dot.is_file():
            try:
                text = dot.read_text(encoding="utf-8").strip()
            except (OSError, UnicodeDecodeError):
                return None
            if not text.startswith("gitdir:"):
                return None
            return folder / text[len("gitdir:") :].strip()  # absolute stays absolute
    return None


def seal_key(root: Path, *, create: bool) -> bytes | None:
    """This clone's sealing key (None when there is none and `create` is off). Outside git
    nothing can plant a generation, and it lives in `.memkit/`."""
    git_dir = _git_dir(root)
    path = git_dir / KEY_NAME if git_dir is not None else root / ".memkit" / KEY_NAME
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        if not create:
            return None
        key = os.urandom(32)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            return seal_key(root, create=False)  # another build made it meanwhile
        with os.fdopen(fd, "wb") as fh:
            fh.write(key)
        return key
    except OSError:
        return None
    # Whose it is was settled with the repository (`memkit.ownership`): the user's own, or
    # one they trust by git's safe.directory, whose owner built and sealed its index.
    with os.fdopen(fd, "rb") as fh:
        key = fh.read(64)
    return key if len(key) == 32 else None


def _mac(key: bytes, build: str, files: dict[str, Any]) -> str:
    text = json.dumps({"build": build, "files": files}, sort_keys=True, separators=(",", ":"))
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).hexdigest()


def _root_of(gen: Path) -> Path:
    return gen.parent.parent.parent  # <root>/.memkit/index/gen-…


def write_checksums(gen: Path, known: dict[str, list[int]] | None = None) -> str:
    """Seal a finished generation; returns its build id. `known`: [size, CRC] of files
    whose checksum the builder already has (written from memory, or hard-linked from the
    previous generation): taken when the size still matches, not read again."""
    build = uuid.uuid4().hex
    known = known or {}
    files = {}
    for rel in _files(gen):
        size = (gen / rel).stat().st_size
        have = known.get(rel)
        files[rel] = [size, have[1] if have and have[0] == size else _crc(gen / rel)]
    key = seal_key(_root_of(gen), create=True)
    if key is None:
        raise OSError(f"cannot keep this clone's index key beside {_root_of(gen)}")
    mac = _mac(key, build, files)
    write_json_atomic(gen / CHECKSUMS, {"build": build, "files": files, "mac": mac})
    return build


def read_checksums(gen: Path) -> dict[str, Any] | None:
    """The generation's seal when this clone made it; None for one without a seal, with a
    damaged one, or one made anywhere else (never trusted: rebuilt)."""
    try:
        data = json.loads((gen / CHECKSUMS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
        return None
    build, mac = data.get("build"), data.get("mac")
    if not isinstance(build, str) or not build or not isinstance(mac, str):
        return None
    key = seal_key(_root_of(gen), create=False)
    if key is None or not hmac.compare_digest(mac, _mac(key, build, data["files"])):
        return None
    return data


def verify(
    gen: Path, *, deep: bool | str = False, seal: dict[str, Any] | None = None
) -> dict[str, str]:
    """What is wrong with a generation's files, by file: missing, truncated or grown, and with
    `deep`, changed (CRC); with `deep="changed"`, the CRC of files modified after the seal
    was written only (a write that kept the size, a file a checkout put there; not bit rot,
    which the engine and `memkit index` find). Empty when all is well. Without a seal of this
    clone's (none, a damaged one, or one made elsewhere) the seal is the problem, and nothing
    else is looked at."""
    seal = seal or read_checksums(gen)
    if seal is None:
        return {CHECKSUMS: "missing, damaged or not made by this clone"}
    sealed_at = 0
    if deep == "changed":
        try:
            sealed_at = (gen / CHECKSUMS).stat().st_mtime_ns
        except OSError:
            deep = True
    problems: dict[str, str] = {}
    for rel, (size, crc) in seal["files"].items():
        path = gen / rel
        try:
            stat = path.stat()
        except OSError:
            problems[rel] = "missing"
            continue
        changed = deep is True or (deep == "changed" and stat.st_mtime_ns > sealed_at)
        if stat.st_size != size:
            problems[rel] = f"{stat.st_size} bytes, expected {size}"
        elif changed and _crc(path) != crc:
            problems[rel] = "content changed (checksum)"
    return problems


def link_files(
    previous: Path, gen: Path, rels: Iterable[str], seal: dict[str, Any]
) -> dict[str, list[int]]:
    """Files of the previous generation, hard-linked into `gen` at the same relative paths
    (a copy where the file system has no hard links); returns their entries in `seal`, the
    previous generation's, whose checksums need not be computed again."""
    linked: dict[str, list[int]] = {}
    for rel in rels:
        try:
            os.link(previous / rel, gen / rel)
        except OSError:
            shutil.copy2(previous / rel, gen / rel)
        if rel in seal["files"]:
            linked[rel] = seal["files"][rel]
    return linked


def describe(problems: dict[str, str]) -> str:
    shown = [f"{rel} {why}" for rel, why in sorted(problems.items())[:3]]
    return ", ".join(shown) + (", …" if len(problems) > 3 else "")


def current_generation(root: Path) -> Path | None:
    base = index_dir(root)
    try:
        name = (base / "CURRENT").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    gen = base / name
    return gen if name.startswith("gen-") and (gen / "meta.json").is_file() else None


def json_bytes(data: Any) -> bytes:
    """`data` as UTF-8 JSON, by orjson (7 MB of meta.json at 10,000 atoms in ~20 ms; the
    standard library's C encoder takes ~100 ms), or json where orjson is missing."""
    try:
        import orjson
    except ImportError:
        return json.dumps(data, ensure_ascii=False).encode("utf-8")
    return orjson.dumps(data)


def json_load(path: Path) -> Any:
    try:
        import orjson
    except ImportError:
        return json.loads(path.read_text(encoding="utf-8"))
    return orjson.loads(path.read_bytes())


class OutdatedIndex(ValueError):
    """A generation built by another version of memkit: rebuilt, not damaged."""


def read_meta(gen: Path) -> dict[str, Any]:
    """The generation's header (model, dim, what was left out, its parts); the atom table
    is read by `memkit.index.parts.read_table`."""
    data: dict[str, Any] = json_load(gen / "meta.json")
    if data.get("format") != FORMAT:
        raise OutdatedIndex(f"{gen}: index format {data.get('format')}, expected {FORMAT}")
    return data


def write_json_atomic(path: Path, data: Any) -> None:
    write_bytes_atomic(path, json_bytes(data))


def write_text_atomic(path: Path, text: str) -> None:
    write_atomic(path, text, durable=False)  # derived: rebuilt if a crash loses it


def write_bytes_atomic(path: Path, data: bytes | memoryview) -> None:
    write_atomic(path, lambda fh: fh.write(data), durable=False)


def write_atomic_with(path: Path, writer: Callable[[IO[bytes]], object]) -> None:
    write_atomic(path, writer, durable=False)


def new_generation(root: Path) -> Path:
    memkit_dir(root)
    base = index_dir(root)
    base.mkdir(parents=True, exist_ok=True)
    numbers = [int(p.name[4:]) for p in base.glob("gen-*") if p.name[4:].isdigit()]
    gen = base / f"gen-{max(numbers, default=0) + 1:06d}"
    gen.mkdir()
    return gen


def publish(root: Path, gen: Path) -> None:
    base = index_dir(root)
    # Durable: after a crash CURRENT must name a generation whose files made it to disk.
    write_atomic(base / "CURRENT", gen.name + "\n")
    old = sorted((p for p in base.glob("gen-*") if p != gen), key=lambda p: p.name)
    for stale in old[:-KEEP_OLD] if len(old) > KEEP_OLD else []:
        shutil.rmtree(stale, ignore_errors=True)


def discard(gen: Path) -> None:
    shutil.rmtree(gen, ignore_errors=True)


class Busy(RuntimeError):
    """Another process is building the index (see `write_lock(wait=False)`)."""


@contextlib.contextmanager
def write_lock(root: Path, *, wait: bool = True) -> Iterator[None]:
    """One writer at a time; a second `memkit index` waits for the first to finish, or
    (`wait=False`) raises Busy at once."""
    memkit_dir(root)
    base = index_dir(root)
    base.mkdir(parents=True, exist_ok=True)
    with (base / "write.lock").open("a") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError as exc:
            raise Busy(f"{base} is being built by another process") from exc
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
