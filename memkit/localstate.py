"""Is the local state under `.memkit/` sound? The checks behind `memkit doctor` for what can
be damaged on one machine: the index's files, the usage log, the folder itself (owner, mode,
read-only, a full disk) and the warm engine (stopped, hung, a socket not ours).

memkit heals most of this by itself (see docs/reliability.md); each check still names the
command that fixes it now.
"""

from __future__ import annotations

import os
import shlex
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from memkit.checkup import FAIL, OK, WARN, Check
from memkit.findings import describe_refused
from memkit.index.manifest import is_stale
from memkit.index.opening import DAMAGED, open_checked
from memkit.index.store import describe
from memkit.recall.client import SOCKET, engine_hung
from memkit.recall.trust import engine_socket
from memkit.recall.usage import damaged

LOW_SPACE = 20 * 1024 * 1024  # bytes: below this an index build or a log write may fail


def check_index(root: Path) -> Iterator[Check]:
    """The live generation, every file's checksum verified, opened as the engine opens it."""
    reader, problem, detail = open_checked(root, deep=True)
    if reader is None:
        yield Check(
            FAIL, "index", f"damaged: {detail}" if problem == DAMAGED else detail, "memkit index"
        )
        return
    _ = reader.vectors  # loads (and checks) them: damage shows in reader.damage
    if reader.problems or reader.damage:
        what = describe(reader.problems) if reader.problems else reader.damage
        yield Check(
            FAIL,
            "index",
            f"{reader.generation} is damaged ({what}); hooks answer from what still works "
            "and rebuild it",
            "memkit index",
        )
        return
    atoms = len(reader.atoms)
    if not reader.build:
        yield Check(
            WARN,
            "index",
            f"{atoms} atoms in {reader.generation}, built by an older memkit (no checksums)",
            "memkit index",
        )
    elif is_stale(root):
        yield Check(
            WARN,
            "index",
            f"{atoms} atoms in {reader.generation}, behind the working tree "
            "(searches and the warm engine refresh it by themselves)",
            "memkit index",
        )
    else:
        yield Check(OK, "index", f"{atoms} atoms, current ({reader.generation})")
    refused = reader.refusals
    if refused:
        yield Check(
            WARN,
            "invalid atoms",
            f"{len(refused)} left out of the index ({describe_refused(refused)})",
            "memkit validate",
        )


def check_usage(root: Path) -> Check:
    path = root / ".memkit" / "usage.db"
    if not path.is_file():
        return Check(OK, "usage log", "none yet (made by the first hook)")
    remove = "rm -f " + " ".join(
        shlex.quote(str(path.with_name(path.name + extra))) for extra in ("", "-wal", "-shm")
    )

    problems: list[str] = []
    uses = 0
    # immutable: a read-only folder cannot hold the -shm file a WAL reader would make.
    for options in ("mode=ro", "mode=ro&immutable=1"):
        try:
            db = sqlite3.connect(f"file:{path}?{options}", uri=True)
            try:
                problems = [row[0] for row in db.execute("PRAGMA quick_check")]
                uses = db.execute("SELECT count(*) FROM uses").fetchone()[0]
            finally:
                db.close()
            break
        except sqlite3.DatabaseError as exc:
            problems = [str(exc)]
            if damaged(exc):
                break
    if problems and problems != ["ok"]:
        return Check(
            FAIL,
            "usage log",
            f"{path} is damaged ({problems[0]}); it only tunes ranking, and the next hook "
            "sets it aside",
            remove,
        )
    return Check(OK, "usage log", f"{uses} recent uses")


def check_folder(root: Path) -> Iterator[Check]:
    folder = root / ".memkit"
    try:
        st = folder.lstat()
    except OSError:
        return
    quoted = shlex.quote(str(folder))
    if st.st_uid != os.geteuid():
        yield Check(
            FAIL,
            ".memkit folder",
            f"owned by uid {st.st_uid}, not you: hooks neither use its engine nor log there",
            f"rm -rf {quoted}  (derived; memkit index rebuilds it)",
        )
        return
    if st.st_mode & 0o077:
        yield Check(
            WARN,
            ".memkit folder",
            f"mode {st.st_mode & 0o777:o}: others may read the usage log and hook logs",
            f"chmod 700 {quoted}",
        )
    fs = os.statvfs(folder)
    if fs.f_flag & os.ST_RDONLY or not os.access(folder, os.W_OK):
        yield Check(
            WARN,
            ".memkit folder",
            "read-only: memory is served from the index there is; it is not refreshed, "
            "uses are not recorded",
            f"make {quoted} writable (remount it, or fix its permissions)",
        )
    elif fs.f_bavail * fs.f_frsize < LOW_SPACE:
        free = fs.f_bavail * fs.f_frsize // 1024
        yield Check(
            WARN,
            ".memkit folder",
            f"disk nearly full ({free} KB free): the index cannot be rebuilt, uses are not "
            "recorded (nothing is lost or set aside meanwhile)",
            "free some disk space",
        )


def check_engine(root: Path) -> Check:
    folder = root / ".memkit"
    sock = folder / SOCKET
    if sock.exists() and engine_socket(str(root), SOCKET) is None:
        return Check(
            FAIL,
            "warm engine",
            f"{sock} is not yours alone: hooks do not talk to it",
            f"rm -f {shlex.quote(str(sock))}",
        )
    try:
        pid = (folder / "engine.pid").read_text(encoding="utf-8").strip()
    except OSError:
        return Check(OK, "warm engine", "not running; the Claude Code hooks start it on demand")
    stop = f"kill -CONT {pid}; memkit serve --stop --repo {shlex.quote(str(root))}"
    if engine_hung(str(root)):
        try:
            state = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rpartition(")")[2]
        except OSError:
            state = ""
        stopped = state.split()[:1] in (["T"], ["t"])
        why = "is stopped (SIGSTOP?)" if stopped else "did not answer a hook in time"
        return Check(
            FAIL,
            "warm engine",
            f"pid {pid} {why}: hooks answer by themselves meanwhile, without vectors",
            stop,
        )
    return Check(OK, "warm engine", f"running (pid {pid})")
