"""What reaches a prompt (issue 13, part 2): an unrelated prompt gets nothing, a related one
what it needs; superseded, archived, expired atoms and other people's episodic ones by no road;
long atoms by their matching sections. Each through the hook without an engine and through
the warm engine (`memkit serve`)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from memkit.atom.read import parse_atom_bytes
from tests.helpers import (
    atom_text,
    commit_and_index,
    context,
    git,
    make_memory_repo,
    memkit,
    run_hook,
    start_engine,
    write_atom,
)

Isolated = Callable[[], AbstractContextManager[None]]

ATOMS = {
    "shared/deploy-steps.md": atom_text(
        "deploy-steps",
        title="Deploy steps",
        body="- Deploy the API with the blue-green script; database migrations run first.",
        extra="triggers: [deploy]\n",
    ),
    "shared/ws-heartbeat.md": atom_text(
        "ws-heartbeat",
        title="WebSocket heartbeat",
        type_="pitfall",
        body="- Send a WebSocket ping every 30 s; the load balancer drops idle sockets at 60 s.",
        extra="triggers: [websocket, 心跳]\n",
    ),
    "shared/kafka-offsets.md": atom_text(
        "kafka-offsets",
        title="Kafka offsets",
        body="- Commit Kafka consumer offsets after processing a message, never before.",
        extra="triggers: [kafka]\n",
    ),
    "shared/money-cents.md": atom_text(
        "money-cents",
        title="Money as integer cents",
        body="- Store prices as integer cents in a BIGINT column; never use float columns.",
    ),
    "shared/utc-schedules.md": atom_text(
        "utc-schedules",
        title="Schedules in UTC",
        body="- Every scheduled job runs in UTC; the nightly report runs at 02:00 UTC.",
    ),
    "shared/schedule-zh.md": atom_text(
        "schedule-zh",
        title="排程一律用 UTC",
        body="- 所有排程任務都用 UTC，每晚報表在 02:00 UTC 執行。",
        extra="triggers: [排程]\n",
    ),
    "shared/image-digests.md": atom_text(
        "image-digests",
        title="Pin base images by digest",
        body="- Dockerfiles pin base images by sha256 digest, never by a moving tag.",
    ),
}


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory, module_home: Isolated) -> Path:
    with module_home():
        repo = make_memory_repo(tmp_path_factory.mktemp("noise") / "team", hooks=False)
        for path, text in ATOMS.items():
            write_atom(repo, path, text)
        commit_and_index(repo)
    return repo


@contextlib.contextmanager
def engine_of(repo: Path, module_home: Isolated) -> Iterator[Path]:
    """A warm engine for `repo`, started and stopped in the module's own isolation."""
    with module_home():
        server = start_engine(repo, "--idle", "300")
    try:
        yield repo
    finally:
        server.terminate()  # the engine leaves cleanly on SIGTERM
        server.wait(timeout=30)
        server.communicate()


@pytest.fixture(scope="module")
def engine(team: Path, module_home: Isolated) -> Iterator[Path]:
    """The warm engine of `team`, shared by the module's warm tests."""
    with engine_of(team, module_home) as repo:
        yield repo


_n = iter(range(100_000))


def ask(repo: Path, prompt: str, *, warm: bool, env: dict[str, str] | None = None) -> str:
    payload = {"session_id": f"s{next(_n)}", "prompt": prompt}
    return context(run_hook("user-prompt-submit", payload, repo, repo, engine=warm, env=env))


MODES = pytest.mark.parametrize("warm", [False, True], ids=["no-engine", "warm-engine"])


def repo_for(request: pytest.FixtureRequest, warm: bool) -> Path:
    return Path(request.getfixturevalue("engine" if warm else "team"))


OFF_TOPIC = [
    "what is the weather in Paris today",
    "Recommend a good book for a long flight",
    "Fix the failing test in tests/test_parser.py, it says KeyError: 'name'",
    "今天北京天气怎么样？",
    "帮我把这个函数改成异步的",
]


@MODES
def test_an_unrelated_prompt_gets_nothing(request: pytest.FixtureRequest, warm: bool) -> None:
    repo = repo_for(request, warm)
    for prompt in OFF_TOPIC:
        assert ask(repo, prompt, warm=warm) == "", prompt
    if warm:  # the engine did answer: a related prompt gets vectors in its reasons
        assert "vector #" in ask(repo, "how do we deploy the api", warm=True)


@MODES
@pytest.mark.parametrize(
    ("prompt", "wanted"),
    [
        ("how do we deploy the api?", "deploy-steps"),
        ("the websocket keeps dropping after a minute idle", "ws-heartbeat"),
        ("心跳間隔要設多少？", "ws-heartbeat"),
        ("when should the consumer commit kafka offsets", "kafka-offsets"),
        ("which column type should prices use", "money-cents"),
        ("晚上的報表幾點執行？", "schedule-zh"),
        # One word in common is enough when it is the only word of the prompt memory knows.
        ("before I touch our Dockerfiles, what should I know?", "image-digests"),
    ],
)
def test_a_related_prompt_still_gets_its_atom(
    request: pytest.FixtureRequest, warm: bool, prompt: str, wanted: str
) -> None:
    text = ask(repo_for(request, warm), prompt, warm=warm)
    assert f"## {wanted} " in text
    assert "covers " in text  # each reason says how much of the prompt it covers


@MODES
def test_a_trigger_alone_must_still_be_about_the_prompt(
    request: pytest.FixtureRequest, warm: bool
) -> None:
    repo = repo_for(request, warm)
    assert "## deploy-steps " in ask(repo, "deploy", warm=warm)
    blog = "how can I deploy my personal blog on Netlify with Hugo themes and a custom domain"
    assert ask(repo, blog, warm=warm) == ""


@MODES
def test_use_never_lifts_an_atom_over_the_floor(request: pytest.FixtureRequest, warm: bool) -> None:
    from memkit.recall.usage import UsageLog

    repo = repo_for(request, warm)
    log = UsageLog(repo)
    try:
        for n in range(50):
            log.record(f"past{n}", ["money-cents", "image-digests"])
    finally:
        log.close()
    assert ask(repo, "what is the weather in Paris today", warm=warm) == ""
    text = ask(repo, "which column type should prices use", warm=warm)
    assert "## money-cents " in text and "image-digests" not in text


# -- what is never served, by any road ----------------------------------------------------
RETIRED = {
    # the old port, superseded by a newer atom that says so (its own status was never changed)
    "shared/zebra-port-old.md": atom_text(
        "zebra-port-old",
        title="Zebra gateway port",
        body="- The zebra gateway listens on port 8080 behind the legacy balancer.",
        extra='triggers: [zebra]\npaths: ["src/gateway/**"]\n',
    ),
    "shared/zebra-port.md": atom_text(
        "zebra-port",
        title="Zebra gateway port",
        body="- The zebra gateway listens on port 9090 since the move to Envoy.",
        extra="triggers: [zebra]\nsupersedes: [zebra-port-old]\n",
    ),
    # a replacement waiting for review retires nothing until it is approved
    "shared/zebra-rota.md": atom_text(
        "zebra-rota",
        title="Zebra on-call rota",
        body="- The zebra gateway on-call rota is kept by the payments team in PagerDuty.",
        extra="triggers: [rota]\n",
    ),
    "shared/_pending/zebra-rota-new.md": atom_text(
        "zebra-rota-new",
        title="Zebra on-call rota",
        body="- The zebra gateway on-call rota is kept by the platform team in Opsgenie.",
        extra="triggers: [rota]\nsupersedes: [zebra-rota]\n",
    ),
    "shared/zebra-overview.md": atom_text(
        "zebra-overview",
        title="Zebra overview",
        body="- Zebra is the billing gateway; its owners are the payments team.",
        extra="triggers: [zebra]\nrelated: [zebra-port-old, zebra-expired]\n",
    ),
    "shared/zebra-status.md": atom_text(
        "zebra-status",
        title="Zebra legacy notes",
        body="- The zebra legacy notes describe the gateway rollout.",
        extra='status: superseded\ntriggers: [zebra]\npaths: ["src/gateway/**"]\n',
    ),
    "shared/zebra-archived.md": atom_text(
        "zebra-archived",
        title="Zebra legacy rollout",
        body="- The zebra legacy rollout used canaries in the gateway.",
        extra='status: archived\ntriggers: [zebra]\npaths: ["src/gateway/**"]\n',
    ),
    "archive/zebra-retired.md": atom_text(
        "zebra-retired",
        title="Zebra legacy gateway",
        body="- The zebra legacy gateway ran on bare metal.",
        extra='triggers: [zebra]\npaths: ["src/gateway/**"]\n',
    ),
    "shared/zebra-expired.md": atom_text(
        "zebra-expired",
        title="Zebra legacy freeze",
        body="- The zebra legacy gateway is frozen for the audit.",
        extra='expires: 2025-06-30\ntriggers: [zebra]\npaths: ["src/gateway/**"]\n',
    ),
    "personal/alice-test/zebra-mine-expired.md": atom_text(
        "zebra-mine-expired",
        title="My zebra legacy notes",
        body="- My zebra legacy gateway notes for the freeze.",
        extra="expires: 2025-06-30\ntriggers: [zebra]\n",
    ),
    "episodic/session-alice.md": atom_text(
        "session-alice",
        title="Session: zebra legacy gateway",
        body="- Worked on the zebra legacy gateway port; alicemarker.",
        extra="author: alice@example.com\nexpires: 2099-01-01\ntriggers: [zebra]\n",
    ),
    "episodic/session-bob.md": atom_text(
        "session-bob",
        title="Session: zebra legacy gateway",
        body="- Worked on the zebra legacy gateway port; bobmarker.",
        extra="author: bob@example.com\nexpires: 2099-01-01\ntriggers: [zebra]\n",
    ),
}
NEVER = [
    "zebra-rota-new",
    "zebra-port-old",
    "zebra-status",
    "zebra-archived",
    "zebra-retired",
    "zebra-expired",
]
# Session summaries in the tree (an older memkit wrote them there) are never recalled, not
# even for their author (issue 29: summaries are local, `.memkit/episodic/`).
NEVER += ["zebra-mine-expired", "session-bob", "session-alice"]
LEGACY = "zebra legacy gateway port notes rollout freeze balancer bare metal"


@pytest.fixture(scope="module")
def retired(tmp_path_factory: pytest.TempPathFactory, module_home: Isolated) -> Iterator[Path]:
    with module_home():
        repo = make_memory_repo(tmp_path_factory.mktemp("retired") / "team", hooks=False)
        for path, text in RETIRED.items():
            write_atom(repo, path, text)
        commit_and_index(repo)
    with engine_of(repo, module_home):
        yield repo


@MODES
def test_retired_atoms_are_never_injected(retired: Path, warm: bool) -> None:
    found = [
        ask(retired, LEGACY, warm=warm),
        ask(retired, "zebra overview: who owns the billing gateway", warm=warm),
        context(
            run_hook(
                "pre-tool-use",
                {
                    "session_id": f"t{next(_n)}",
                    "tool_name": "Read",
                    "tool_input": {"file_path": str(retired / "src/gateway/main.py")},
                },
                retired,
                retired,
                engine=warm,
            )
        ),
        context(
            run_hook(
                "session-start",
                {"session_id": "x", "source": "startup"},
                retired,
                retired,
                engine=warm,
            )
        ),
    ]
    found.append(ask(retired, "who keeps the zebra gateway on-call rota", warm=warm))
    text = "\n".join(found)
    assert "## zebra-rota " in found[-1]  # its replacement is not approved yet
    assert "## zebra-port " in found[0]  # the current atom answers
    assert "## zebra-overview " in found[1]  # its related atoms are not brought back
    for atom_id in NEVER:
        assert atom_id not in text, atom_id
    assert "bobmarker" not in text and "alicemarker" not in text


@MODES
def test_an_episode_in_the_tree_is_recalled_for_nobody(retired: Path, warm: bool) -> None:
    # Bob, known only from GIT_AUTHOR_* variables (through the engine too: it answers as the
    # hook that asks), gets neither his old summary nor Alice's, however well they match.
    bob = {"GIT_AUTHOR_NAME": "Bob", "GIT_AUTHOR_EMAIL": "bob@example.com"}
    text = ask(retired, LEGACY, warm=warm, env=bob)
    assert "## zebra-port " in text
    assert "bobmarker" not in text and "alicemarker" not in text


# -- long atoms: the matching sections ------------------------------------------------------
SECTIONS = [
    ("Kafka retention", "Kafka topics keep messages for seven days; compacted topics forever."),
    ("Redis eviction", "Redis runs with allkeys-lru and a 4 GB maxmemory on every cache node."),
    ("Postgres vacuum", "Autovacuum is tuned to a 0.05 scale factor on the orders table."),
    ("日誌保存", "應用程式日誌在 Loki 保存三十天，稽核日誌另外保存一年。"),
]


@pytest.fixture(scope="module")
def handbook(tmp_path_factory: pytest.TempPathFactory, module_home: Isolated) -> Iterator[Path]:
    body = "\n\n".join(f"## {head}\n\n" + "\n".join([f"- {text}"] * 8) for head, text in SECTIONS)
    with module_home():
        repo = make_memory_repo(tmp_path_factory.mktemp("sections") / "team", hooks=False)
        write_atom(
            repo, "shared/ops-handbook.md", atom_text("ops-handbook", title="Ops", body=body)
        )
        commit_and_index(repo)
    with engine_of(repo, module_home):
        yield repo


@MODES
@pytest.mark.parametrize(
    ("prompt", "section"),
    [
        ("how long does kafka keep messages", 0),
        ("redis maxmemory eviction policy", 1),
        ("autovacuum scale factor on orders", 2),
        ("Loki 日誌保存多久？", 3),
    ],
)
def test_a_long_atom_brings_its_matching_section(
    handbook: Path, warm: bool, prompt: str, section: int
) -> None:
    text = ask(handbook, prompt, warm=warm)
    assert SECTIONS[section][1] in text
    others = [t for i, (_h, t) in enumerate(SECTIONS) if i != section]
    assert not any(t in text for t in others)
    assert "other sections omitted" in text


# -- trigger hygiene and the parse indexing uses -------------------------------------------
def parse(triggers: str, *, fast: bool) -> list[str]:
    text = atom_text("t", body="- A fact about zebras.", extra=f"triggers: {triggers}\n")
    return [f.code for f in parse_atom_bytes("shared/t.md", text.encode(), fast=fast).findings]


@pytest.mark.parametrize("fast", [False, True], ids=["validate", "index"])
def test_trigger_hygiene(fast: bool) -> None:
    assert parse("[the, a, is]", fast=fast) == ["MK021"] * 3
    assert parse("[zebra, 的, 是]", fast=fast) == ["MK021"] * 2
    assert parse("[zebra, go, db]", fast=fast) == ["MK021"] * 2
    assert parse("[zebra, websocket heartbeat, 心跳, k8s]", fast=fast) == []
    assert parse("[" + ", ".join(f"w{i}x" for i in range(21)) + "]", fast=fast) == ["MK022"]


def test_duplicate_keys_are_caught_by_the_fast_parse_too() -> None:
    text = "---\nid: t\ntype: fact\nconfidence: observed\ncreated: 2026-02-08\ntype: pitfall\n"
    for fast in (False, True):
        parsed = parse_atom_bytes("shared/t.md", (text + "---\n# T\n\nbody\n").encode(), fast=fast)
        assert [f.code for f in parsed.findings] == ["MK003"] and not parsed.ok


def test_a_stale_index_of_an_older_memkit_is_rebuilt_not_read(team: Path, tmp_path: Path) -> None:
    import shutil

    from memkit.index import IndexUnavailable, open_index
    from memkit.index.lite import open_light
    from memkit.index.store import current_generation

    copy = tmp_path / "team"
    shutil.copytree(team, copy, ignore=shutil.ignore_patterns("engine.sock"))
    generation = current_generation(copy)
    assert generation is not None
    meta = generation / "meta.json"
    data = json.loads(meta.read_text(encoding="utf-8"))
    meta.write_text(json.dumps({**data, "format": 1}), encoding="utf-8")
    for opener in (open_index, open_light):
        with pytest.raises(IndexUnavailable):
            opener(copy)
    git(copy, "status")  # still a repository
    assert memkit("index", cwd=copy).returncode == 0
    assert open_light(copy).atoms[0]["id"]
