"""Damaged local state heals itself (issue 21): the index, its vectors, the column cache, the
usage log; a full disk and a read-only `.memkit/` are not damage."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memkit.index.store import verify
from tests.helpers import (
    HOOK_SCRIPT,
    atom_text,
    commit_and_index,
    context,
    generation,
    git,
    make_memory_repo,
    memkit,
    run_hook,
    wait_for,
    write_atom,
)


def ask(repo: Path, prompt: str, session: str = "") -> str:
    session = session or f"s{time.monotonic_ns()}"
    return context(
        run_hook("user-prompt-submit", {"session_id": session, "prompt": prompt}, repo, repo)
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = make_memory_repo(tmp_path / "team")
    for n, (topic, trig) in enumerate(
        [("Kafka offsets", "kafka"), ("Redis eviction", "redis"), ("Nginx buffers", "nginx")]
    ):
        write_atom(
            repo,
            f"shared/topic-{n}.md",
            atom_text(
                f"topic-{n}",
                title=topic,
                body=f"- {topic}: always check the {trig} settings before a release.",
                extra=f"triggers: [{trig}]\n",
            ),
        )
    commit_and_index(repo)
    return repo


def damage(path: Path, how: str) -> None:
    data = path.read_bytes()
    if how == "truncate":
        path.write_bytes(data[: len(data) // 2])
    else:  # flip bytes in the middle: same size, other content (bit rot)
        mid = len(data) // 2
        path.write_bytes(
            data[:mid] + bytes(b ^ 0xFF for b in data[mid : mid + 8]) + data[mid + 8 :]
        )


def tantivy_file(gen: Path, kind: str) -> Path:
    if kind == "meta.json":
        return gen / "tantivy" / "meta.json"
    return next((gen / "tantivy").glob(f"*.{kind}"))


def doctor(repo: Path) -> dict[str, str]:
    out = memkit("doctor", cwd=repo).stdout
    found: dict[str, str] = {}
    last = ""
    for line in out.splitlines():
        if line.startswith("     fix: "):
            found[last + " fix"] = line.split("fix: ", 1)[1]
        elif ": " in line and line[:4].strip() in ("ok", "warn", "FAIL"):
            status, rest = line[:4].strip(), line[5:]
            last = rest.split(": ", 1)[0]
            found[last] = f"{status} {rest.split(': ', 1)[1]}"
    return found


@pytest.mark.parametrize(
    ("kind", "how"),
    [
        ("store", "truncate"),
        ("idx", "truncate"),
        ("term", "truncate"),
        ("fast", "truncate"),
        ("fieldnorm", "truncate"),
        ("meta.json", "truncate"),
        ("store", "flip"),
        ("term", "flip"),
    ],
)
def test_a_damaged_tantivy_file_is_found_and_the_fix_named_works(
    repo: Path, kind: str, how: str
) -> None:
    gen = generation(repo)
    damage(tantivy_file(gen, kind), how)
    found = doctor(repo)
    assert found["index"].startswith("FAIL") and "damaged" in found["index"], found
    assert found["index fix"] == "memkit index"
    # `memkit index` used to say "up to date" and keep the damage (it copies tantivy files).
    result = memkit(*found["index fix"].split()[1:], cwd=repo)
    assert result.returncode == 0, result.stderr
    assert generation(repo) != gen and not verify(generation(repo), deep=True)
    assert doctor(repo)["index"].startswith("ok")


@pytest.mark.parametrize("kind", ["store", "term", "meta.json"])
def test_hooks_answer_from_what_works_and_the_index_heals(repo: Path, kind: str) -> None:
    gen = generation(repo)
    damage(tantivy_file(gen, kind), "truncate")
    start = context(run_hook("session-start", {"session_id": "a", "source": "startup"}, repo, repo))
    assert "being rebuilt" in start
    # Triggers still answer, the body read from the atom file itself.
    assert "always check the kafka settings" in ask(repo, "kafka lag again")
    log = (repo / ".memkit/logs/hooks.log").read_text(encoding="utf-8")
    assert "index: damaged" in log and "rebuilding" in log
    wait_for(lambda: generation(repo) != gen, 60)  # rebuilt in the background, by itself
    assert not verify(generation(repo), deep=True)
    assert "topic-1" in ask(repo, "what does eviction do")  # BM25 is back (no trigger here)


def test_damage_soon_after_a_heal_is_healed_too(repo: Path) -> None:
    """The mark that keeps every hook from starting its own rebuild holds off rebuilds of the
    generation it names only: the healed one, damaged a minute later, is rebuilt again."""
    for n in range(2):
        gen = generation(repo)
        damage(tantivy_file(gen, "store"), "truncate")
        assert "always check the kafka settings" in ask(repo, "kafka lag again")

        def rebuilt(gen: Path = gen) -> bool:
            return generation(repo) != gen

        wait_for(rebuilt, 60)
        assert not verify(generation(repo), deep=True), n
        assert "topic-1" in ask(repo, "what does eviction do"), n


def test_a_truncated_vectors_file_is_found_rebuilt_and_search_still_answers(repo: Path) -> None:
    gen = generation(repo)
    damage(next(gen.glob("vectors-*.npy")), "truncate")
    found = doctor(repo)
    assert found["index"].startswith("FAIL") and "vectors-" in found["index"], found
    result = memkit("search", "redis eviction", cwd=repo)
    assert result.returncode == 0, result.stderr  # was exit 3 on every call
    assert "topic-1" in result.stdout and "rebuilding the index" in result.stderr
    assert generation(repo) != gen and doctor(repo)["index"].startswith("ok")


def test_a_truncated_vectors_file_in_the_warm_engine(repo: Path) -> None:
    from tests.helpers import start_engine

    gen = generation(repo)
    damage(next(gen.glob("vectors-*.npy")), "truncate")
    engine = start_engine(repo, "--idle", "60")
    try:
        payload = {"session_id": "e1", "cwd": str(repo), "prompt": "nginx buffers size"}
        text = context(run_hook("user-prompt-submit", payload, repo, engine=True))
        assert "topic-2" in text  # BM25, triggers
        wait_for(lambda: generation(repo) != gen, 60)
        payload = {"session_id": "e2", "cwd": str(repo), "prompt": "nginx buffers size"}
        text = context(run_hook("user-prompt-submit", payload, repo, engine=True))
        assert "vector #" in text  # vectors back
    finally:
        engine.terminate()
        engine.communicate(timeout=30)
    assert "vectors damaged" in (repo / ".memkit/logs/hooks.log").read_text(encoding="utf-8")


def test_vectors_truncated_under_a_running_engine_do_not_kill_it(repo: Path) -> None:
    from tests.helpers import engine_running

    for n in range(40):  # vectors over several pages: a mapped page past the end faults
        body = f"- Service {n} listens on port {9000 + n}; restart it with the deploy tool."
        write_atom(repo, f"shared/service-{n}.md", atom_text(f"service-{n}", body=body))
    commit_and_index(repo)
    gen = generation(repo)
    with engine_running(repo, "--idle", "60") as engine:
        payload = {"session_id": "v1", "cwd": str(repo), "prompt": "nginx buffers size"}
        text = context(run_hook("user-prompt-submit", payload, repo, engine=True))
        assert "vector #" in text  # loaded
        # In place, as a crash or a full disk leaves it: the same file, its header only.
        vectors = next(gen.glob("vectors-*.npy"))
        vectors.write_bytes(vectors.read_bytes()[:200])
        for n in range(3):
            payload = {"session_id": f"v{n + 2}", "cwd": str(repo), "prompt": "nginx buffers"}
            text = context(run_hook("user-prompt-submit", payload, repo, engine=True))
            assert "topic-2" in text, n
        assert engine.poll() is None  # it used to die of SIGBUS reading a mapped page


def test_the_column_cache_is_keyed_by_build_not_by_name(repo: Path) -> None:
    assert "topic-0" in ask(repo, "kafka consumer")  # writes the cache of gen-000001
    write_atom(
        repo,
        "shared/topic-0.md",
        atom_text(
            "topic-0",
            title="Message queue offsets",
            body="- Commit offsets after processing.",
            extra="triggers: [rabbitmq]\n",
        ),
    )
    git(repo, "commit", "-qam", "retrigger", "--no-verify")
    shutil.rmtree(repo / ".memkit/index")
    assert memkit("index", cwd=repo).returncode == 0
    assert generation(repo).name == "gen-000001"  # the same name as the cached one
    assert "topic-0" not in ask(repo, "kafka consumer")  # the old trigger is gone
    assert "topic-0" in ask(repo, "rabbitmq consumer")


def test_an_atom_deleted_from_the_working_tree_is_never_injected(repo: Path) -> None:
    write_atom(
        repo,
        "shared/net-rules.md",
        atom_text(
            "net-rules",
            title="Network rules",
            body="- Always set a connect deadline.",
            extra='triggers: [kafka]\npaths: ["src/net/**"]\n',
        ),
    )
    commit_and_index(repo)
    (repo / "shared/topic-0.md").unlink()
    (repo / "shared/net-rules.md").unlink()
    # No rebuild yet (no engine, no git hook): the index still lists both.
    assert "topic-0" not in ask(repo, "kafka lag")
    assert "net-rules" not in ask(repo, "kafka lag")
    read = {
        "session_id": "p",
        "tool_name": "Read",
        "tool_input": {"file_path": str(repo / "src/net/conn.py")},
    }
    assert context(run_hook("pre-tool-use", read, repo, repo)) == ""
    start = context(run_hook("session-start", {"session_id": "q", "source": "startup"}, repo, repo))
    assert "topic-1" in start and "topic-0" not in start


def make_usage_log(repo: Path, rows: int) -> Path:
    path = repo / ".memkit/usage.db"
    with sqlite3.connect(path) as db:
        db.executescript(
            "CREATE TABLE IF NOT EXISTS uses (atom TEXT NOT NULL, ts REAL NOT NULL, kind TEXT);"
            "CREATE INDEX IF NOT EXISTS uses_atom ON uses (atom);"
            "CREATE TABLE IF NOT EXISTS given (session TEXT, atom TEXT,"
            " PRIMARY KEY (session, atom));"
            "CREATE TABLE IF NOT EXISTS sessions (session TEXT, ts REAL, event TEXT, detail TEXT);"
        )
        now = time.time()
        db.executemany(
            "INSERT INTO uses VALUES (?, ?, 'inject')",
            ((f"topic-{i % 3}", now - i) for i in range(rows)),
        )
    return path


@pytest.mark.slow
def test_a_huge_old_usage_log_never_holds_a_prompt(repo: Path) -> None:
    """2,000,000 uses not yet folded (an old log, no engine to fold it while idle): every
    prompt answers, and each folds one bounded batch that stays folded. It used to fold
    200,000 rows per prompt, past the hook's deadline: killed, rolled back, answered nothing,
    the same again on the next prompt."""
    path = repo / ".memkit/usage.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE uses (atom TEXT NOT NULL, ts REAL NOT NULL, kind TEXT NOT NULL)")
        # Uses of 3,000 atoms over 46 days, oldest first, written by SQLite itself (seconds).
        db.execute(
            "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 1999999) "
            "INSERT INTO uses SELECT 'atom-' || (i % 3000), ? + 2 * i, 'inject' FROM n",
            (time.time() - 4e6,),
        )
        db.execute("CREATE INDEX uses_atom ON uses (atom)")

    def oldest() -> int:
        with sqlite3.connect(path) as db:
            return int(db.execute("SELECT min(rowid) FROM uses").fetchone()[0])

    before = oldest()
    for n in range(3):
        assert "topic-0" in ask(repo, "kafka lag again"), n
    assert oldest() > before  # folded, and it stayed folded


def test_corrupt_pages_behind_a_valid_header_are_set_aside(repo: Path) -> None:
    path = make_usage_log(repo, 5_000)
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) > 8 * page
    for start in range(2 * page, len(data), 3 * page):  # page 1 (header, schema) stays valid
        data[start : start + page] = b"\xa5" * page
    path.write_bytes(bytes(data))
    found = doctor(repo)
    assert found["usage log"].startswith("FAIL"), found
    # Each hook used to answer nothing, forever.
    assert "topic-0" in ask(repo, "kafka lag")
    assert list((repo / ".memkit").glob("usage.db.damaged-*"))
    assert doctor(repo)["usage log"].startswith("ok")


def test_the_doctor_fix_for_a_damaged_usage_log_works(repo: Path) -> None:
    (repo / ".memkit/usage.db").write_bytes(b"garbage" * 1000)
    found = doctor(repo)
    assert found["usage log"].startswith("FAIL")
    fix = found["usage log fix"]
    assert fix.startswith("rm ")
    subprocess.run(fix, shell=True, cwd=repo, check=True)  # noqa: S602  (the named fix)
    assert doctor(repo)["usage log"].startswith("ok")


# -- a full disk and a read-only .memkit: run in a private mount namespace -----------------


def _namespaces() -> bool:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "true"], capture_output=True, check=False
    )
    return probe.returncode == 0


needs_mounts = pytest.mark.skipif(
    not _namespaces(), reason="needs root and `unshare -m` to mount a full or read-only disk"
)


def in_namespace(repo: Path, setup: str, *commands: str) -> list[tuple[int, str]]:
    """Run shell `commands` in `repo` after `setup`, in a private mount namespace (the mounts
    vanish with it); each command's exit code and output (stdout and stderr together)."""
    out = repo.parent / "namespace-out"
    out.mkdir(exist_ok=True)
    script = setup + "\n".join(
        f"{command} > {out}/{n}.txt 2>&1; echo $? > {out}/{n}.rc"
        for n, command in enumerate(commands)
    )
    result = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", script],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return [
        (int((out / f"{n}.rc").read_text()), (out / f"{n}.txt").read_text())
        for n in range(len(commands))
    ]


FULL_DISK = """
set -e
mkdir -p ../saved && cp -a .memkit/index .memkit/usage.db ../saved/
mount -t tmpfs -o size=4m tmpfs .memkit
cp -a ../saved/. .memkit/
dd if=/dev/zero of=.memkit/filler bs=64k count=1000 2>/dev/null || true
set +e
"""


@needs_mounts
def test_a_full_disk_is_not_damage(repo: Path) -> None:
    ask(repo, "kafka lag")  # the usage log exists and is healthy
    prompt = json.dumps({"session_id": "f", "cwd": str(repo), "prompt": "kafka lag"})
    out = in_namespace(
        repo,
        FULL_DISK,
        f"echo '{prompt}' | {HOOK_SCRIPT} user-prompt-submit --repo={repo}",
        f"echo '{prompt}' | {HOOK_SCRIPT} user-prompt-submit --repo={repo}",
        f"{sys.executable} -m memkit index --full 2>&1",
        f"{sys.executable} -m memkit search redis 2>&1",
        f"{sys.executable} -m memkit doctor 2>&1",
        "ls .memkit",
    )
    (_, first), (_, second), index, search, (_, doctor_out), (_, listing) = out
    assert "topic-0" in first and "topic-0" in second  # served, several times
    assert "usage.db" in listing and "damaged" not in listing  # kept, not set aside
    assert index[0] == 1 and "No space left on device" in index[1]  # exit 1, said once
    assert "internal error" not in index[1] and "the previous index" in index[1]
    assert search[0] == 0 and "topic-1" in search[1]
    assert "disk" in doctor_out and "full" in doctor_out


@needs_mounts
def test_a_disk_that_fills_while_the_index_is_written_exits_1(repo: Path) -> None:
    """However far the build gets (its tantivy thread included, which reports a failed write
    in words of its own), a full disk is exit 1 and a message, never a crash (exit 3)."""
    sizes = (4, 8, 12, 16, 24, 32, 48, 64)
    out = in_namespace(
        repo,
        "",
        *(
            f"(mount -t tmpfs -o size={kb}k tmpfs .memkit/index && "
            f"{sys.executable} -m memkit index --full; rc=$?; umount .memkit/index; exit $rc)"
            for kb in sizes
        ),
    )
    for kb, (rc, text) in zip(sizes, out, strict=True):
        assert rc in (0, 1) and "internal error" not in text, (kb, text)  # 0: it fitted
        assert rc == 0 or "No space left on device" in text, (kb, text)
    assert out[0][0] == 1  # 4 kB: not even the first file


READ_ONLY = """
set -e
mount --bind .memkit .memkit
mount -o remount,bind,ro .memkit
set +e
"""


@needs_mounts
def test_a_read_only_memkit_folder_serves_and_commits_still_work(repo: Path) -> None:
    ask(repo, "kafka lag")
    write_atom(
        repo,
        "shared/cache-ttl.md",
        atom_text(
            "cache-ttl",
            title="Cache TTL",
            body="- Always set the Redis cache TTL to 300 s (`cache.ttl` in config.yaml).",
        ),
    )
    git(repo, "add", "-A")
    prompt = json.dumps({"session_id": "r", "cwd": str(repo), "prompt": "kafka lag"})
    out = in_namespace(
        repo,
        READ_ONLY,
        f"echo '{prompt}' | {HOOK_SCRIPT} user-prompt-submit --repo={repo}",
        f"{sys.executable} -m memkit search redis 2>&1",
        f"{sys.executable} -m memkit index 2>&1",
        "git commit -m 'cache ttl' 2>&1",
        f"{sys.executable} -m memkit doctor 2>&1",
    )
    (_, answer), search, index, commit, (_, doctor_out) = out
    assert "topic-0" in answer
    assert search[0] == 0 and "topic-1" in search[1]
    assert index[0] == 1 and "Read-only file system" in index[1]
    assert "internal error" not in index[1]
    assert commit[0] == 0, commit[1]  # the checks that need no index still ran
    assert "cache-ttl" in git(repo, "log", "--stat", "-1").stdout
    assert "read-only" in doctor_out


@needs_mounts
@pytest.mark.parametrize("setup", ["read-only", "full"])
def test_a_memkit_folder_that_cannot_be_written_leaves_no_crash_log_per_hook(
    repo: Path, setup: str
) -> None:
    """Each hook asked for the engine, found none and started one, which crashed on the lock
    file it could not make: a crash log per prompt."""
    ask(repo, "kafka lag")  # the usage log exists
    logs = Path(os.environ["MEMKIT_LOG_DIR"])
    before = set(logs.glob("crash-*")) if logs.is_dir() else set()
    prompt = json.dumps({"session_id": "c", "cwd": str(repo), "prompt": "kafka lag"})
    with_engine = f"MEMKIT_NO_ENGINE=0 {HOOK_SCRIPT} user-prompt-submit --repo={repo}"
    out = in_namespace(
        repo,
        READ_ONLY if setup == "read-only" else FULL_DISK,
        *[f"echo '{prompt}' | {with_engine}"] * 4,
        "sleep 4",  # the engines those hooks started, gone by now
    )
    assert all("topic-0" in text for _, text in out[:4])  # answered in-process
    after = set(logs.glob("crash-*")) if logs.is_dir() else set()
    assert len(after - before) <= 1, sorted(after - before)


def run_fix(repo: Path, fix: str) -> None:
    subprocess.run(fix.split("  (", maxsplit=1)[0], shell=True, cwd=repo, check=True)  # noqa: S602


def test_a_memkit_folder_others_can_read_is_named_and_fixed(repo: Path) -> None:
    (repo / ".memkit").chmod(0o755)  # as an older memkit left it
    found = doctor(repo)
    assert found[".memkit folder"].startswith("warn") and "755" in found[".memkit folder"]
    run_fix(repo, found[".memkit folder fix"])
    assert ".memkit folder" not in doctor(repo)


@pytest.mark.skipif(os.geteuid() != 0, reason="a socket of another user needs root to make")
def test_an_engine_socket_of_another_user_is_named_and_fixed(repo: Path) -> None:
    import socket

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(repo / ".memkit/engine.sock"))
    try:
        os.chown(repo / ".memkit/engine.sock", 65534, 65534)
        found = doctor(repo)
        assert found["warm engine"].startswith("FAIL") and "not yours" in found["warm engine"]
        run_fix(repo, found["warm engine fix"])
        assert doctor(repo)["warm engine"].startswith("ok")
    finally:
        sock.close()
