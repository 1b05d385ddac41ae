"""A code project at one git tree: its files, their contents, and what its history held.

Everything is read from git objects, never from the working tree: `memkit drift` checks HEAD
(or `--rev`), its commit hook the tree of the index (`git write-tree`: what is about to be
committed), `--base` in CI both sides of a pull request. Three kinds of git call, each made
once or in batches: `ls-tree` lists the files, `cat-file --batch` reads many, `log` walks
the history (`ever`: every path the history reachable from the tree's commit ever held,
kept in the memory clone between runs and extended with the new commits only).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memkit.files import write_atomic
from memkit.git import name_status, output, run

log = logging.getLogger(__name__)
MAX_FILE = 2_000_000  # bytes of one file read: a lock file is the largest worth reading


def _split(data: bytes) -> list[str]:
    return [p for p in data.decode("utf-8", "surrogateescape").split("\0") if p]


@dataclass
class Tree:
    """The project at `root`, as the tree `tree` holds it; `commit`: the commit it is (or,
    for the index's tree, would become the child of) — where its history starts."""

    root: Path
    tree: str
    commit: str | None
    files: frozenset[str] = frozenset()
    _dirs: frozenset[str] | None = None
    _by_name: dict[str, list[str]] | None = None
    _read: dict[str, str | None] = field(default_factory=dict)
    renames: dict[str, str] = field(default_factory=dict)  # --base: old path -> new path
    memo: dict[str, Any] = field(default_factory=dict)  # what readers work out once per tree

    @classmethod
    def at(cls, root: Path, rev: str) -> Tree:
        """The tree of `rev` (a commit, or the index's tree from `git write-tree`)."""
        tree = run(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{tree}}").decode().strip()
        commit = output(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
        listed = run(root, "-c", "core.quotePath=false", "ls-tree", "-r", "-z", "--name-only", tree)
        return cls(root, tree, commit or None, frozenset(_split(listed)))

    @classmethod
    def staged(cls, root: Path) -> Tree:
        """What the next commit would hold: the index's tree, its history from HEAD."""
        tree = run(root, "write-tree").decode().strip()
        made = cls.at(root, tree)
        made.commit = output(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}") or None
        return made

    @property
    def dirs(self) -> frozenset[str]:
        if self._dirs is None:
            found: set[str] = set()
            for path in self.files:
                at = path.rfind("/")
                while at > 0:
                    parent = path[:at]
                    if parent in found:
                        break
                    found.add(parent)
                    at = path.rfind("/", 0, at)
            self._dirs = frozenset(found)
        return self._dirs

    def named(self, name: str) -> list[str]:
        """Files whose last part is `name`."""
        if self._by_name is None:
            by_name: dict[str, list[str]] = {}
            for path in self.files:
                by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)
            self._by_name = by_name
        return self._by_name.get(name, [])

    def find(self, path: str) -> list[str]:
        """The files (or folders) that `path` names: itself, or paths ending in `/path` (a
        path written relative to a sub-project)."""
        path = path.strip("/")
        if path in self.files or path in self.dirs:
            return [path]
        name = path.rsplit("/", 1)[-1]
        tail = "/" + path
        found = [p for p in self.named(name) if p.endswith(tail)]
        if found:
            return sorted(found)
        folders: dict[str, list[str]] | None = self.memo.get("folders")
        if folders is None:
            folders = {}
            for folder in self.dirs:
                folders.setdefault(folder.rsplit("/", 1)[-1], []).append(folder)
            self.memo["folders"] = folders
        return sorted(d for d in folders.get(name, ()) if d.endswith(tail))

    def read(self, path: str) -> str | None:
        """The text of a file of the tree, or None (missing, binary or too large)."""
        if path not in self._read:
            self.read_many([path])
        return self._read.get(path)

    def read_many(self, paths: list[str]) -> None:
        """Read the files of `paths` not read yet, in one `git cat-file --batch`."""
        todo = [p for p in dict.fromkeys(paths) if p not in self._read and p in self.files]
        for p in paths:
            if p not in self.files:
                self._read[p] = None
        if not todo:
            return
        query = "".join(f"{self.tree}:{p}\n" for p in todo).encode("utf-8", "surrogateescape")
        data = run(self.root, "cat-file", "--batch", stdin=query)
        at = 0
        for path in todo:
            end = data.index(b"\n", at)
            head = data[at:end].split()
            at = end + 1
            if len(head) < 3 or head[1] != b"blob":
                self._read[path] = None
                continue
            size = int(head[2])
            body = data[at : at + size]
            at += size + 1
            if size > MAX_FILE or b"\0" in body[:8000]:
                self._read[path] = None
            else:
                self._read[path] = body.decode("utf-8", "replace")

    def grep(self, words: list[str], pathspecs: list[str]) -> dict[str, set[str]]:
        """word -> the files among `pathspecs` that hold it as a whole word."""
        if not words or not self.files:
            return {}
        args = ["grep", "-I", "-o", "-w", "-F", "--no-color", "-z"]
        for word in words:
            args += ["-e", word]
        args += [self.tree, "--", *pathspecs]
        try:
            result = subprocess.run(
                ["git", "-c", "core.quotePath=false", *args],
                cwd=self.root,
                capture_output=True,
                check=False,
            )
        except OSError:
            return {}
        found: dict[str, set[str]] = {}
        prefix = f"{self.tree}:"
        for line in result.stdout.decode("utf-8", "surrogateescape").splitlines():
            parts = line.split("\0")
            if len(parts) < 2:
                continue
            path = parts[0].removeprefix(prefix)
            found.setdefault(parts[-1], set()).add(path)
        return found


class Blobs:
    """One `git cat-file --batch` kept open: a file as any commit had it (`abc123^:path`) in
    well under a millisecond, where a `git show` each costs a process."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._proc: subprocess.Popen[bytes] | None = None
        self._read: dict[str, str | None] = {}

    def read(self, name: str) -> str | None:
        if name in self._read:
            return self._read[name]
        text = None
        try:
            if self._proc is None:
                self._proc = subprocess.Popen(
                    ["git", "cat-file", "--batch"],
                    cwd=self.root,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                )
            if self._proc.stdin is None or self._proc.stdout is None:  # not with PIPE
                raise OSError("git cat-file has no pipes")
            self._proc.stdin.write(name.encode("utf-8", "surrogateescape") + b"\n")
            self._proc.stdin.flush()
            head = self._proc.stdout.readline().split()
            if len(head) == 3 and head[1] == b"blob":
                body = self._proc.stdout.read(int(head[2]) + 1)[:-1]
                if len(body) <= MAX_FILE and b"\0" not in body[:8000]:
                    text = body.decode("utf-8", "replace")
        except (OSError, ValueError):
            self.close()
        self._read[name] = text
        return text

    def close(self) -> None:
        if self._proc is not None:
            for stream in (self._proc.stdin, self._proc.stdout):
                if stream is not None:
                    stream.close()
            self._proc.wait()
            self._proc = None


@dataclass(frozen=True)
class Removal:
    commit: str  # abbreviated
    date: str  # YYYY-MM-DD
    renamed_to: str = ""


class History:
    """What the project's history (up to the tree's commit) once held.

    One walk of the history gives every path it held and, for each path taken out, the
    newest commit that deleted or renamed it (and where to); kept in the memory clone
    (`history_cache`) with the commit it reached, and extended by the commits since."""

    def __init__(self, tree: Tree, cache: Path | None = None) -> None:
        self.tree = tree
        self.cache = cache
        self._ever: frozenset[str] | None = None
        self._removed: dict[str, list[str]] = {}  # path -> [commit, date, renamed to]
        self._names: dict[str, list[str]] | None = None  # last part -> paths and folders
        self._logs: dict[str, _FileLog] = {}
        # The commit the cached walk had reached (None: walked afresh) and the paths the
        # commits since then touched: what a cached verdict of that commit may not know.
        self.since: str | None = None
        self.touched: set[str] = set()

    def ever(self) -> frozenset[str]:
        """Every path any commit up to the tree's commit held (none without a commit)."""
        if self._ever is None:
            self._ever = frozenset(self._walk()) | self.tree.files
        return self._ever

    def _walk(self) -> set[str]:
        commit = self.tree.commit
        if commit is None:
            return set()
        cached: dict[str, Any] = {}
        if self.cache is not None:
            try:
                loaded = json.loads(self.cache.read_text(encoding="utf-8"))
                cached = loaded if isinstance(loaded, dict) and loaded.get("format") == 2 else {}
            except (OSError, ValueError):
                cached = {}
        raw_known, raw_paths, raw_removed = (cached.get(k) for k in ("commit", "paths", "removed"))
        known = raw_known if isinstance(raw_known, str) else ""
        paths: list[str] = raw_paths if isinstance(raw_paths, list) else []
        removed: dict[str, list[str]] = raw_removed if isinstance(raw_removed, dict) else {}
        usable = bool(known) and "paths" in cached and "removed" in cached
        if usable and known == commit:
            self._removed = removed
            self.since, self.touched = commit, set()
            return set(paths)
        walk = [commit]
        have: set[str] = set()
        if (
            usable
            and output(self.tree.root, "merge-base", "--is-ancestor", str(known), commit)
            is not None
        ):
            walk = [commit, f"^{known}"]
            have = set(paths)
            self._removed = dict(removed)
            self.since = str(known)
        touched, newer = self._log(walk)
        have |= touched
        if self.since:
            self.touched = touched
        self._removed = {**self._removed, **newer}
        if self.cache is not None:
            try:
                data = {
                    "format": 2,
                    "commit": commit,
                    "paths": sorted(have),
                    "removed": self._removed,
                }
                write_atomic(self.cache, json.dumps(data), durable=False, mode=0o600)
            except OSError as exc:
                log.info("the drift history cache was not written (%s)", exc)
        return have

    def _log(self, walk: list[str]) -> tuple[set[str], dict[str, list[str]]]:
        """Every path `walk`'s commits touched, and the newest removal of each path removed
        in them."""
        have: set[str] = set()
        listed = run(
            self.tree.root,
            "-c",
            "core.quotePath=false",
            "log",
            "-M",
            "--name-status",
            "-z",
            "--format=%x01%h %cs",
            *walk,
        ).decode("utf-8", "surrogateescape")
        removed: dict[str, list[str]] = {}
        for chunk in listed.split("\x01")[1:]:
            head, _, rest = chunk.partition("\n")
            short, _, date = head.strip("\x00 ").partition(" ")
            for letter, path, new in name_status(rest):
                have.add(path)
                if new:
                    have.add(new)
                if letter in "RD":  # newest first: the last removal of each path
                    removed.setdefault(path, [short, date, new if letter == "R" else ""])
        return have, removed

    def _index(self) -> dict[str, list[str]]:
        """Last part -> the paths and folders the history held with it."""
        if self._names is None:
            names: dict[str, set[str]] = {}
            for path in self.ever():
                parts = path.split("/")
                for depth in range(1, len(parts) + 1):
                    names.setdefault(parts[depth - 1], set()).add("/".join(parts[:depth]))
            self._names = {k: sorted(v) for k, v in names.items()}
        return self._names

    def once(self, path: str) -> list[str]:
        """The paths (files, or folders) the history held that `path` names (as `Tree.find`
        does: itself, or a path ending in `/path`), none of them in the tree now."""
        path = path.strip("/")
        tail = "/" + path
        found = [
            p
            for p in self._index().get(path.rsplit("/", 1)[-1], [])
            if p == path or p.endswith(tail)
        ]
        return [p for p in found if p not in self.tree.files and p not in self.tree.dirs]

    def removal(self, path: str) -> Removal | None:
        """The newest commit that removed `path`, and where it went when it was a rename (a
        file renamed again, or deleted later, is followed: up to three moves)."""
        self.ever()
        found = self._removed.get(path)
        hops = 0
        while found is not None and found[2] and found[2] not in self.tree.files and hops < 3:
            later = self._removed.get(found[2])
            if later is None:
                break
            found = later
            hops += 1
        if found is None:
            return None
        renamed = found[2] if found[2] in self.tree.files else ""
        return Removal(found[0], found[1], renamed)

    def logged(self) -> set[str]:
        """The files whose history `file_log` has read already."""
        return set(self._logs)

    def file_log(self, path: str) -> _FileLog:
        """The lines each commit took out of `path`, newest first (one `git log -p`)."""
        if path not in self._logs:
            commit = self.tree.commit
            text = None
            if commit is not None:
                text = output(
                    self.tree.root,
                    "log",
                    "--format=%x00%h %cs",
                    "-p",
                    "--no-color",
                    "-U0",
                    "--no-renames",
                    commit,
                    "--",
                    path,
                )
            self._logs[path] = _FileLog(text or "")
        return self._logs[path]


class _FileLog:
    """The lines a file's commits took out, with the words of those lines indexed: a name is
    looked for only in the commits that took out a line holding it."""

    _WORD = re.compile(r"[\w@][\w.@/+-]*")

    def __init__(self, text: str) -> None:
        self.entries: list[tuple[str, str, list[str]]] = []
        self.words: dict[str, list[int]] = {}
        for chunk in text.split("\0")[1:]:
            head, _, patch = chunk.partition("\n")
            short, _, date = head.partition(" ")
            removed = [
                ln[1:]
                for ln in patch.split("\n")
                if ln.startswith("-") and not ln.startswith("---")
            ]
            index = len(self.entries)
            self.entries.append((short, date, removed))
            for word in {w.rstrip(".") for line in removed for w in self._WORD.findall(line)}:
                self.words.setdefault(word, []).append(index)

    def holding(self, word: str) -> list[tuple[str, str, list[str]]]:
        """The commits (newest first) that took out a line holding `word` as a whole word."""
        return [self.entries[i] for i in self.words.get(word, ())]


def history_cache(memory: Path, project: Path, what: str = "history") -> Path:
    """Where a memory clone keeps what it learnt of a project's history (local state):
    `history` the paths it held, `verdicts` what it said of each claim."""
    key = hashlib.sha1(os.fsencode(project.resolve())).hexdigest()[:16]  # noqa: S324
    return memory / ".memkit" / "drift" / f"{what}-{key}.json"
