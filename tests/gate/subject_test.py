"""One template about many subjects (a procedure per service) is neither a duplicate (MK103)
nor a finding at all (issue 38); the same knowledge written twice still is a duplicate. Real
git, the real hooks, the real model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memkit.atom import Atom
from memkit.checks.gate import _match_findings
from memkit.gate.duplicates import DuplicateSettings, Match, subject_swap
from tests.helpers import git, make_memory_repo, memkit

SERVICES = [
    "payments",
    "search",
    "billing",
    "gateway",
    "auth",
    "ledger",
    "mailer",
    "reports",
    "images",
    "notify",
]


def _deploy(s: str) -> str:
    return (
        f"Deploy {s} with Argo CD from the release branch; roll back {s} with "
        f"'helm rollback {s}' within ten minutes if its error rate doubles."
    )


def atom(title: str, text: str, *, id_: str = "", triggers: tuple[str, ...] = ()) -> Atom:
    """An atom as `memkit add` writes it: the title as a heading above the text."""
    return Atom(
        path=f"shared/{id_ or 'a'}.md",
        id=id_ or title.lower().replace(" ", "-"),
        type="procedure",
        confidence="tentative",
        created="2026-11-25",
        status="active",
        scope="shared",
        title=title,
        body=f"# {title}\n\n{text}",
        triggers=triggers,
    )


def service(s: str) -> Atom:
    return atom(f"Deploying the {s} service", _deploy(s), triggers=(f"{s} deploy",))


def zh_service(s: str, release: str, digest: str) -> Atom:
    text = (
        f"用 Argo CD 从发布分支部署{s}服务；如果{s}的错误率翻倍，"
        f"十分钟内用 helm rollback {release} 回滚{s}。"
    )
    return atom(f"部署{s}服务", text, id_=f"procedure-{digest}", triggers=(f"{s}部署",))


# One text about two subjects, each named in the atom's title, id or triggers.
SWAPS = {
    "services": (service("auth"), service("billing"), ("auth", "billing")),
    "chinese, with an English release name": (
        zh_service("认证", "auth", "3f2a9c1e"),
        zh_service("账单", "billing", "8b0d4e77"),
        ("认证", "账单"),
    ),
    "named by the trigger alone (title from the text)": (
        atom(_deploy("auth").split(";")[0], _deploy("auth"), triggers=("auth deploy",)),
        atom(_deploy("mailer").split(";")[0], _deploy("mailer"), triggers=("mailer deploy",)),
        ("auth", "mailer"),
    ),
    "environments": (
        atom("Credentials in staging", "Staging reads credentials from Vault at secret/staging."),
        atom("Credentials in prod", "Prod reads credentials from Vault at secret/prod."),
        ("Staging", "Prod"),
    ),
}
# The same knowledge twice, or a difference no name explains.
NOT_SWAPS = {
    "reworded, same title": (
        service("billing"),
        atom(
            "Deploying the billing service",
            "Billing is deployed with Argo CD from the release branch; if its error rate "
            "doubles, roll it back with 'helm rollback billing' within ten minutes.",
            triggers=("billing deploy",),
        ),
    ),
    "retitled, same text": (
        service("gateway"),
        atom("Gateway deploys and rollbacks", _deploy("gateway"), triggers=("gateway deploy",)),
    ),
    "an incidental word": (
        service("payments"),
        atom(
            "Deploying the payments service",
            _deploy("payments").replace("ten minutes", "10 minutes"),
            triggers=("payments deploy",),
        ),
    ),
    "two spellings of one name": (
        atom("Vacuuming Postgres", "Run VACUUM ANALYZE on Postgres after a bulk delete."),
        atom("Vacuuming PostgreSQL", "Run VACUUM ANALYZE on PostgreSQL after a bulk delete."),
    ),
    "the subject in the text only, one title": (
        atom("Deploy procedure", "Deploy payments with Argo CD.", id_="deploy-1"),
        atom("Deploy procedure", "Deploy search with Argo CD.", id_="deploy-2"),
    ),
    "titles taken from the text name nothing": (
        atom(
            "Always run make migrate before deploying the API",
            "Always run make migrate before deploying the API.",
        ),
        atom(
            "Run make migrate before every API deploy, always",
            "Run make migrate before every API deploy, always.",
        ),
    ),
    "more words differ than the subject explains": (
        service("auth"),
        atom(
            "Deploying the billing service",
            "Ship billing via Argo CD off the release branch; revert billing using "
            "'helm rollback billing' inside ten minutes when errors double.",
            triggers=("billing deploy",),
        ),
    ),
}


@pytest.mark.parametrize("name", list(SWAPS))
def test_a_subject_swap_is_found_both_ways(name: str) -> None:
    a, b, (sa, sb) = SWAPS[name]
    assert subject_swap(a, b) == (sa, sb)
    assert subject_swap(b, a) == (sb, sa)


@pytest.mark.parametrize("name", list(NOT_SWAPS))
def test_the_same_knowledge_twice_is_no_subject_swap(name: str) -> None:
    a, b = NOT_SWAPS[name]
    assert subject_swap(a, b) is None
    assert subject_swap(b, a) is None


def test_a_close_subject_swap_is_no_finding_and_a_close_copy_still_fails() -> None:
    """Another subject is another claim (issue 38): nothing for anyone to act on."""
    auth, billing = service("auth"), service("billing")
    close = Match(billing.id, billing.path, 0.95)
    assert _match_findings(auth, close, DuplicateSettings(), billing) == []
    copy, original = NOT_SWAPS["reworded, same title"]
    (found,) = _match_findings(original, Match(copy.id, copy.path, 0.95), DuplicateSettings(), copy)
    assert found.code == "MK103" and found.is_error


def test_one_procedure_per_service_is_added_and_committed_and_a_copy_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The day-one walk: ten `memkit add` calls with the identity only in the environment,
    one commit through the real pre-commit hooks; a reworded copy still fails. ~15 s: ten
    fresh processes with the model and one commit through every hook."""
    repo = make_memory_repo(tmp_path / "team")
    home = Path(os.environ["HOME"])
    (home / ".gitconfig").write_text("[commit]\n\tgpgsign = false\n", encoding="utf-8")
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", "Dana")
        monkeypatch.setenv(f"GIT_{who}_EMAIL", "dana@example.com")
    outputs = []
    for s in SERVICES:
        added = memkit(
            "add", "--type", "procedure", "--title", f"Deploying the {s} service",
            "--trigger", f"{s} deploy", _deploy(s), cwd=repo,
        )  # fmt: skip
        assert added.returncode == 0, added.stdout + added.stderr
        outputs.append(added.stdout + added.stderr)
    said = "".join(outputs)
    assert "MK103" not in said and "MK104" not in said
    assert (repo / "shared/deploying-the-mailer-service.md").is_file()

    git(repo, "add", "shared")
    committed = git(repo, "commit", "-m", "one deploy procedure per service", check=False)
    assert committed.returncode == 0, committed.stdout + committed.stderr
    assert "MK104" not in committed.stdout + committed.stderr
    assert git(repo, "log", "-1", "--format=%an").stdout.strip() == "Dana"

    gate = memkit("gate", cwd=repo)
    assert gate.returncode == 0, gate.stdout + gate.stderr
    assert "MK103" not in gate.stdout and "MK105" not in gate.stdout
    # A teammate pulling them gets no "keep one; archive the other" either.
    audit = memkit("audit", "--from", "HEAD~1", "--to", "HEAD", cwd=repo)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "0 duplicate(s)" in audit.stdout and "DUPLICATE" not in audit.stdout

    copy = memkit(
        "add", "--type", "procedure", "--title", "Deploying the billing service",
        "--trigger", "billing deploy",
        "Billing is deployed with Argo CD from the release branch; if its error rate "
        "doubles, roll it back with 'helm rollback billing' within ten minutes.",
        cwd=repo,
    )  # fmt: skip
    assert copy.returncode == 1
    assert "MK103 duplicate of `deploying-the-billing-service`" in copy.stdout + copy.stderr


def test_an_announced_rule_written_twice_is_still_a_copy(tmp_path: Path) -> None:
    """`memkit add` titles "From now on we…" by what it says; such a made title names no
    subject, so the same decision captured twice is refused as a copy, not let through as
    "another subject"."""
    first = "From now on we deploy the payments service with Argo CD, never by hand."
    again = "From now on we deploy the payments service using Argo CD and never by hand."
    a = atom("Deploy the payments service with Argo CD, never by hand", first)
    b = atom("Deploy the payments service using Argo CD and never by hand", again)
    assert subject_swap(a, b) is None and subject_swap(b, a) is None
    repo = make_memory_repo(tmp_path / "memory")
    assert memkit("add", first, cwd=repo).returncode == 0
    refused = memkit("add", again, cwd=repo)
    assert refused.returncode == 1, refused.stdout
    assert "MK103 duplicate of `deploy-the-payments-service-with-argo-cd-never-by-hand`" in (
        refused.stdout
    )
