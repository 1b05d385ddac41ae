"""One atom per environment, service or region, each value embedding its own subject
(secret/staging/db, secret/production/db), is no contradiction at the write gate nor in the
pull audit; a real update (the lead changes, titles naming the people) still is. Real git,
the real hooks, the real model."""

from __future__ import annotations

from pathlib import Path

import pytest

from memkit.atom import Atom
from memkit.audit.classify import CONTRADICTS, EXTENDS, classify
from memkit.audit.subject import own_values
from memkit.audit.text import statement_text
from memkit.audit.verdict import verdict as atom_verdict
from tests.gate.subject_test import atom
from tests.helpers import git, join_clone, make_memory_repo, memkit

STAGING = (
    "Database credentials in staging",
    "In staging, services read database credentials from Vault at secret/staging/db; "
    "rotate them monthly.",
)
PRODUCTION = (
    "Database credentials in production",
    "In production, services read database credentials from Vault at secret/production/db; "
    "rotate them monthly.",
)
# The subject written alone, capitalised, where the sentence names what it speaks of.
STAGING_CAPS = (
    "Database credentials in Staging",
    "In Staging, services read database credentials from Vault at secret/staging/db; "
    "rotate them monthly.",
)
PRODUCTION_CAPS = (
    "Database credentials in Production",
    "In Production, services read database credentials from Vault at secret/production/db; "
    "rotate them monthly.",
)
FRENCH = (
    "French translation review",
    "The French translation of the app is reviewed by Amélie before each release.",
)
FRENCH_NEW = (
    "French translation reviewer",
    "The French translation of the app is reviewed by Jonas before each release.",
)
KENJI = ("Kenji leads payments", "The payments lead is Kenji; ask him before changing refunds.")
AMARA = ("Amara leads payments", "The payments lead is Amara; ask her before changing refunds.")


def verdict(a: Atom, b: Atom, similarity: float = 0.92) -> tuple[str, str]:
    found = atom_verdict(a, b, similarity=similarity)
    return found.kind, found.reason


# Each value embeds the atom's own subject: a path, a URL, an address.
PER_SUBJECT = {
    "paths": (STAGING, PRODUCTION),
    "a path per service": (
        ("Payments runbook",
         "The on-call runbook for payments is wiki/runbooks/payments.md; read it first."),
        ("Search runbook",
         "The on-call runbook for search is wiki/runbooks/search.md; read it first."),
    ),
    "a URL, the subject in one of them": (
        ("Staging API base URL",
         "Point the mobile client at https://api.staging.example.com/v2 for a release."),
        ("Production API base URL",
         "Point the mobile client at https://api.example.com/v2 for a release."),
    ),
    "chinese, English names in the values": (
        ("staging 环境的数据库凭据",
         "在 staging 环境，服务从 Vault 的 secret/staging/db 读取数据库凭据。"),
        ("production 环境的数据库凭据",
         "在 production 环境，服务从 Vault 的 secret/production/db 读取数据库凭据。"),
    ),
}  # fmt: skip
# Real updates: the value is the name itself, a number, an instruction, the same subject's
# value, or a tool the title names as the means.
UPDATES = {
    "the lead changes, titles naming the people": (KENJI, AMARA),
    "a number": (
        ("Heartbeat interval", "The worker sends a heartbeat every 30 s to the scheduler."),
        ("Heartbeat interval", "The worker sends a heartbeat every 90 s to the scheduler."),
    ),
    "an instruction flips": (
        ("Deploying the gateway",
         "Deploy the gateway with helm upgrade from the release branch."),
        ("Deploying the gateway by hand",
         "Deploy the gateway from the release branch, never with helm upgrade."),
    ),
    "the same subject's value": (
        ("Staging database credentials",
         "In staging, services read database credentials from Vault at secret/staging/db."),
        ("Staging database credentials (new path)",
         "In staging, services read database credentials from Vault at secret/staging/pg."),
    ),
    "a region that is the whole value": (
        ("Primary database in us-east-1",
         "The primary database runs in us-east-1; fail over with the DBA."),
        ("Primary database in eu-west-1",
         "The primary database runs in eu-west-1; fail over with the DBA."),
    ),
    "a tool the title names as the means": (
        ("Migrations with Flyway",
         "Run database migrations with scripts/flyway-migrate.sh before deploying."),
        ("Migrations with Liquibase",
         "Run database migrations with scripts/liquibase-migrate.sh before deploying."),
    ),
    "a version": (
        ("Node 18 base image", "Build every service on the node:18-alpine image."),
        ("Node 20 base image", "Build every service on the node:20-alpine image."),
    ),
}  # fmt: skip
# The subject written alone, capitalised, at the head of a sentence ("In Staging, …", "The
# French translation …"): each atom's own subject, not two names in one frame.
CAPITALISED = {
    "paths, the subject capitalised at the head": (STAGING_CAPS, PRODUCTION_CAPS),
    "the subject alone is the difference": (
        ("Staging credentials",
         "In Staging, services read database credentials from Vault at secret/db; rotate them."),
        ("Production credentials",
         "In Production, services read database credentials from Vault at secret/db; rotate them."),
    ),
    "the subject in the titles, a reviewer each": (
        FRENCH,
        ("German translation review",
         "The German translation of the app is reviewed by Amélie before each release."),
    ),
    "chinese, the subject capitalised": (
        ("Staging 环境的凭据", "在 Staging 环境，服务从 Vault 读取数据库凭据，每月轮换一次。"),
        ("Production 环境的凭据",
         "在 Production 环境，服务从 Vault 读取数据库凭据，每月轮换一次。"),
    ),
}  # fmt: skip
SUBJECT_AT_HEAD = (
    "the subject alone is the difference",
    "the subject in the titles, a reviewer each",
    "chinese, the subject capitalised",
)
# Real updates with capitalised names: the same subject's other value, or a value the titles
# name that is a person (at the sentence head), an owner or a tool (not at the head).
CAPITALISED_UPDATES = {
    "the same subject, another reviewer": (FRENCH, FRENCH_NEW),
    "a person at the head, the titles naming them": (
        ("Kenji leads payments",
         "Kenji is the payments lead and approves every refund over 500 euros."),
        ("Amara leads payments",
         "Amara is the payments lead and approves every refund over 500 euros."),
    ),
    "an owner the titles name": (
        ("Atlas owns Payments", "The Payments service is owned by Atlas; page them for incidents."),
        ("Orion owns Payments", "The Payments service is owned by Orion; page them for incidents."),
    ),
    "a tool the titles name": (
        ("Argo CD deploys Staging", "Staging is deployed by Argo CD from the main branch."),
        ("Flux deploys Staging", "Staging is deployed by Flux from the main branch."),
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", [*PER_SUBJECT, *CAPITALISED])
def test_values_that_embed_their_own_subject_are_no_contradiction(name: str) -> None:
    a, b = (atom(*pair) for pair in {**PER_SUBJECT, **CAPITALISED}[name])
    texts = statement_text(a.title, a.body), statement_text(b.title, b.body)
    # Where the subject is written alone at the head of the sentence ("In Staging, …" against
    # "In Production, …" with nothing else changed), the claim reading itself takes it for the
    # subject (issue 27): the texts alone are no contradiction. Elsewhere the text reading
    # calls them one, and the atoms' names settle it: the gap this rule closes.
    reads_subject = classify(*texts, similarity=0.92).kind != CONTRADICTS
    assert reads_subject == (name in SUBJECT_AT_HEAD)
    for x, y in ((a, b), (b, a)):
        kind, reason = verdict(x, y)
        assert kind == EXTENDS, reason
        if reads_subject:
            continue
        assert reason.startswith("each value names its own subject (")
        if name in CAPITALISED:  # the reason names each subject as the text writes it
            assert all(w in reason for w in set(x.title.split()) ^ set(y.title.split())), reason


def test_the_subject_is_taken_out_of_the_value_only() -> None:
    a, b = atom(*STAGING), atom(*PRODUCTION)
    masked = own_values(a, b, statement_text(a.title, a.body), statement_text(b.title, b.body))
    assert masked is not None
    assert "In staging, services read database credentials from Vault at secret/db;" in masked[0]
    assert (
        "In production, services read database credentials from Vault at secret/db;" in (masked[1])
    )
    assert masked[2] == "staging / production"
    # Kenji is the value, not part of one: nothing to take out.
    k, m = atom(*KENJI), atom(*AMARA)
    assert (
        own_values(k, m, statement_text(k.title, k.body), statement_text(m.title, m.body)) is None
    )


@pytest.mark.parametrize("name", [*UPDATES, *CAPITALISED_UPDATES])
def test_a_real_update_is_still_a_contradiction(name: str) -> None:
    a, b = (atom(*pair) for pair in {**UPDATES, **CAPITALISED_UPDATES}[name])
    for x, y in ((a, b), (b, a)):
        kind, reason = verdict(x, y)
        assert kind == CONTRADICTS, reason


def add(repo: Path, title: str, text: str) -> str:
    added = memkit("add", "--title", title, text, cwd=repo)
    assert added.returncode == 0, added.stdout + added.stderr
    return added.stdout + added.stderr


def slug(title: str) -> str:
    return "-".join(title.lower().split())


# Per-environment atoms and a later real update: lowercase subjects with the lead changing,
# and capitalised ones ("In Staging, …") with the French translation's reviewer changing.
GATE_CASES = {
    "lowercase": ((STAGING, PRODUCTION), (KENJI, AMARA)),
    "capitalised": ((STAGING_CAPS, PRODUCTION_CAPS), (FRENCH, FRENCH_NEW)),
}


@pytest.mark.parametrize("case", list(GATE_CASES))
def test_per_environment_atoms_pass_the_gate_and_the_pull_audit_and_an_update_does_not(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dana, a programmer (identity only in the environment), adds staging and production
    credentials and commits them through the real hooks; Lee pulls them. Then a real update
    (the lead, the reviewer). ~15 s each: a clone joined, memkit add four times, commits and
    pulls through every hook."""
    (first, second), (old, new) = GATE_CASES[case]
    old_id, new_id = slug(old[0]), slug(new[0])
    dana = make_memory_repo(tmp_path / "dana")
    join_clone(dana, tmp_path / "lee", "lee@example.com")
    lee = tmp_path / "lee"
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", "Dana")
        monkeypatch.setenv(f"GIT_{who}_EMAIL", "dana@example.com")

    said = add(dana, *first) + add(dana, *second)
    assert "MK105" not in said and "MK106" not in said and "sent to review" not in said
    assert not list((dana / "shared/_pending").glob("*.md"))
    assert (dana / f"shared/{slug(second[0])}.md").is_file()
    git(dana, "add", "shared")
    committed = git(dana, "commit", "-m", "database credentials per environment", check=False)
    out = committed.stdout + committed.stderr
    assert committed.returncode == 0, out
    assert "MK105" not in out and "MK106" not in out
    assert git(dana, "log", "-1", "--format=%an").stdout.strip() == "Dana"

    pulled = git(lee, "pull", "--no-rebase", "--quiet", "origin", "main", check=False)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    assert "CONTRADICTS" not in pulled.stdout + pulled.stderr
    audit = memkit("audit", "--all", cwd=lee)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "memkit audit: 0 unresolved contradiction(s)" in audit.stdout

    # A real update, the titles naming the person or the subject: still sent to review,
    # still reported.
    add(dana, *old)
    git(dana, "add", "shared")
    assert git(dana, "commit", "-m", "the old value", check=False).returncode == 0
    routed = add(dana, *new)
    assert f"MK105 warning: contradicts `{old_id}`" in routed
    pending = dana / f"shared/_pending/{new_id}.md"
    assert pending.is_file()
    # Dana moves it out of review by hand: the hook refuses it.
    pending.rename(dana / f"shared/{new_id}.md")
    git(dana, "add", "shared")
    refused = git(dana, "commit", "-m", "the new value", check=False)
    assert refused.returncode == 1
    assert f"MK106 contradicts `{old_id}`" in refused.stdout + refused.stderr
    assert git(dana, "commit", "--no-verify", "-m", "new lead", check=False).returncode == 0
    pulled = git(lee, "pull", "--no-rebase", "--quiet", "origin", "main", check=False)
    out = pulled.stdout + pulled.stderr
    assert pulled.returncode == 0, out
    assert "memkit audit: 1 unresolved contradiction(s)" in out
    pair = sorted((f"shared/{old_id}.md", f"shared/{new_id}.md"))
    assert f"CONTRADICTS {pair[0]} <-> {pair[1]}" in out
