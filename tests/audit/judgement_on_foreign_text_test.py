"""Judgements on text nobody on the team wrote (issue 27), through real git, the real hooks
(pre-commit gate, post-merge audit) and the real model: unrelated atoms pass clean, a
paraphrase is a duplicate, two subjects and two people are no contradiction, record numbers
are no versions, a migration is a contradiction; and every path that judges a pair (gate,
pull audit, `memkit add`, the MCP save, recall's disagreement line) gives one verdict."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from memkit.add import Draft, add_atom
from memkit.atom.read import read_atom
from memkit.audit.run import compare
from memkit.audit.verdict import CONTRADICTS, DUPLICATE, verdict
from memkit.checks.gate import gate_atoms
from memkit.config import load_config
from memkit.embedding import load_encoder
from memkit.mcp.saving import save
from memkit.recall.disagree import disagreement_lines
from tests.audit.judgement_memory import MEMORY, UNRELATED
from tests.helpers import atom_text, git, join_clone, make_memory_repo, memkit, write_atom

PARAPHRASE = (
    "Websocket connections need a heartbeat ping every 30 seconds (config ws.ping_interval) "
    "because the load balancer drops idle connections after 60 s."
)
FLUX = "We moved production deployments from Argo CD to Flux."
ORDERS = "The orders service sets statement_timeout to 30s for its batch jobs."
PEOPLE = (
    ("priya-climber", "Priya Raman is a professional rock climber who trains in Innsbruck."),
    ("tomasz-climber", "Tomasz Wrona is a professional rock climber who trains in Innsbruck."),
)
ADRS = (
    ("adr-14-launch-config", "ADR 14: launch config changes propagate through the config service."),
    ("adr-45-release-trains", "ADR 45: releases leave on a weekly train every Tuesday."),
)  # fmt: skip
_FINDING = re.compile(r"MK10[3-6]")


def _atom(atom_id: str, text: str, title: str = "") -> str:
    return atom_text(atom_id, title=title or text.rstrip("."), body=text)


def _memory(repo: Path) -> Path:
    for atom_id, title, body in MEMORY:
        write_atom(repo, f"shared/{atom_id}.md", _atom(atom_id, body, title))
    write_atom(repo, f"shared/{PEOPLE[0][0]}.md", _atom(*PEOPLE[0]))
    write_atom(repo, f"shared/{ADRS[0][0]}.md", _atom(*ADRS[0]))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "the team's memory")
    indexed = memkit("index", cwd=repo)
    assert indexed.returncode == 0, indexed.stderr
    return repo


def _commit(repo: Path, atoms: dict[str, str]) -> tuple[int, str]:
    for atom_id, text in atoms.items():
        write_atom(repo, f"shared/{atom_id}.md", _atom(atom_id, text))
    git(repo, "add", "-A")
    done = git(repo, "commit", "-m", "new atoms", check=False)
    return done.returncode, done.stdout + done.stderr


@pytest.fixture
def team(tmp_path: Path) -> Path:
    return _memory(make_memory_repo(tmp_path / "team"))


def test_unrelated_atoms_two_people_and_record_numbers_commit_clean(team: Path) -> None:
    new = {**dict(UNRELATED), PEOPLE[1][0]: PEOPLE[1][1], ADRS[1][0]: ADRS[1][1]}
    rc, out = _commit(team, new)
    assert rc == 0, out
    assert not _FINDING.search(out), out


def test_a_paraphrase_is_a_duplicate_not_a_contradiction(team: Path) -> None:
    rc, out = _commit(team, {"ws-heartbeat-ping": PARAPHRASE})
    assert rc == 1, out
    assert "MK103 duplicate of `ws-heartbeat`" in out
    assert "MK105" not in out and "MK106" not in out


def test_two_subjects_of_one_key_are_no_contradiction_and_related_settles_closeness(
    team: Path,
) -> None:
    rc, out = _commit(team, {"orders-statement-timeout": ORDERS})
    assert rc == 0, out
    assert not _FINDING.search(out), out


def test_a_close_atom_is_very_close_until_related_settles_it(team: Path) -> None:
    """The same line with a detail holding a value added (issue 38: closeness of vectors
    alone is no finding; "Set a TTL on every Redis session key so the cache does not fill
    up" beside it commits clean)."""
    loose = (
        "Set a TTL on every Redis session key so the cache does not fill up with stale sessions."
    )
    rc, out = _commit(team, {"redis-ttl-loosely": loose})
    assert rc == 0 and not _FINDING.search(out), out
    near = (
        "Every Redis session key gets a TTL of 24 h, set with `EXPIRE`; keys without a TTL "
        "fill the cache."
    )
    rc, out = _commit(team, {"redis-ttl-everywhere": near})
    assert rc == 0, out  # MK104 is a warning
    assert "MK104 warning: very close to `redis-session-ttl`" in out, out
    assert "adds set with `EXPIRE`" in out, out
    write_atom(
        team,
        "shared/redis-ttl-everywhere.md",
        _atom("redis-ttl-everywhere", near).replace(
            "---\n#", "related: [redis-session-ttl]\n---\n#", 1
        ),
    )
    git(team, "add", "-A")
    again = git(team, "commit", "-m", "linked", check=False)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "MK104" not in again.stdout + again.stderr


def test_the_migration_to_flux_is_a_contradiction_at_commit(team: Path) -> None:
    _, out = _commit(team, {"deploys-with-flux": FLUX})
    assert re.search(r"MK10[56] .*`deploy-with-argo`.*moved from Argo CD to Flux", out), out


def test_a_pull_reports_the_migration_and_nothing_else(tmp_path: Path) -> None:
    origin = _memory(make_memory_repo(tmp_path / "origin"))
    ann = tmp_path / "ann"
    join_clone(origin, ann, "ann@example.com")
    for atom_id, text in {
        "deploys-with-flux": FLUX,
        "orders-statement-timeout": ORDERS,
        PEOPLE[1][0]: PEOPLE[1][1],
        ADRS[1][0]: ADRS[1][1],
        **dict(UNRELATED),
    }.items():
        write_atom(origin, f"shared/{atom_id}.md", _atom(atom_id, text))
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "--no-verify", "-m", "bob's atoms")
    pulled = git(ann, "pull", "--no-rebase", "--quiet", "origin", "main", check=False)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    report = json.loads((ann / ".memkit/audit/last.json").read_text(encoding="utf-8"))
    pairs = {(u["incoming"], u["other"], u["kind"]) for u in report["unresolved"]}
    assert pairs == {("deploys-with-flux", "deploy-with-argo", CONTRADICTS)}, report


def _draft_atom(root: Path, atom_id: str, text: str) -> object:
    write_atom(root, f"shared/{atom_id}.md", _atom(atom_id, text))
    parsed = read_atom(root, f"shared/{atom_id}.md", load_config(root))
    (root / f"shared/{atom_id}.md").unlink()
    assert parsed.atom is not None
    return parsed.atom


@pytest.mark.parametrize(
    ("text", "other", "expected"),
    [
        (FLUX, "deploy-with-argo", CONTRADICTS),
        (PARAPHRASE, "ws-heartbeat", DUPLICATE),
        (ORDERS, "api-statement-timeout", "extends"),
    ],
    ids=["migration", "paraphrase", "two-subjects"],
)
def test_every_path_gives_the_same_verdict(
    team: Path, text: str, other: str, expected: str
) -> None:
    config = load_config(team)
    new = _draft_atom(team, "incoming", text)
    theirs = read_atom(team, f"shared/{other}.md", config).atom
    encoder = load_encoder()
    assert theirs is not None
    va, vb = encoder.encode([f"{new.title}\n{new.body}", f"{theirs.title}\n{theirs.body}"])  # type: ignore[attr-defined]
    direct = verdict(new, theirs, similarity=float(va @ vb)).kind
    assert direct == expected
    # The pull audit (and `memkit audit --all`).
    audited = {r.other: r.kind for r in compare(team, [new], config)}
    assert audited.get(other, "extends") == expected, audited
    # The gate: MK103 for a duplicate, MK105/MK106 for a contradiction, nothing else here.
    (result,) = gate_atoms(team, [new], config)  # type: ignore[list-item]
    codes = {f.code for f in result.findings} & {"MK103", "MK104"}
    assert codes == ({"MK103"} if expected == DUPLICATE else set()), result.findings
    # `memkit add` and the MCP save: one path (`add_atom`), checked by the gate and the write
    # check; the save writes the atom, so it runs last.
    added = add_atom(team, Draft(text=text), dry_run=True)
    assert added.contradicts == ([other] if expected == CONTRADICTS else []), added.findings
    assert bool(added.errors) == (expected == DUPLICATE), added.findings
    # The MCP save asks the agent about a copy or a contradiction before writing anything
    # (issue 38); told that both are needed, it writes as `memkit add` does.
    saved = save(team, Draft(text=text), session="s1")
    assert not saved.refused, saved.text
    asked = expected in (DUPLICATE, CONTRADICTS)
    assert saved.neighbours == ((other,) if asked else ()), saved.text
    if expected == CONTRADICTS:
        saved = save(team, Draft(text=text, related=(other,)), session="s1")
        assert not saved.refused and not saved.neighbours, saved.text
    if expected != DUPLICATE:
        assert saved.outcome is not None
        assert saved.outcome.contradicts == ([other] if expected == CONTRADICTS else [])
        # Recall's disagreement line reads what the write check kept: both atoms injected.
        items = [
            SimpleNamespace(id=saved.outcome.id, repo=str(team)),
            SimpleNamespace(id=other, repo=str(team)),
        ]
        lines = disagreement_lines(items)
        assert bool(lines) == (expected == CONTRADICTS), lines
