"""The contradiction rules on updates as teams write them: a changed value in an unchanged frame,
polarity swaps, and the fragments that used to make false alarms."""

from __future__ import annotations

import pytest

from memkit.audit.classify import CONTRADICTS, _negated, classify
from memkit.audit.text import clauses, sentences


@pytest.mark.parametrize("similarity", [0.65, 0.85])
def test_a_decimal_leaves_no_fragment_that_matches_any_negated_sentence(similarity: float) -> None:
    # Split at every ".", "2.5." left "5.", and the negation rule matched it with anything.
    a, b = "Set the timeout to 2.5.", "We do not deploy on Fridays."
    assert classify(a, b, similarity=similarity).kind != CONTRADICTS
    assert _negated(a, b) == _negated(b, a) == ""


@pytest.mark.parametrize("b", ["Never use pnpm; use npm", "Never use pnpm, use npm."])
def test_a_polarity_swap_is_a_contradiction(b: str) -> None:
    verdict = classify("Always use pnpm, never npm", b, similarity=0.92)
    assert verdict.kind == CONTRADICTS
    assert verdict.reason == "opposite instructions about pnpm"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Set the timeout to 2.5. Then restart.", ["Set the timeout to 2.5.", "Then restart."]),
        (
            "Pin v1.2.3 in config.yaml, e.g. with pip.",
            ["Pin v1.2.3 in config.yaml, e.g. with pip."],
        ),
        ("Ask Dr. Okafor. He knows.", ["Ask Dr. Okafor.", "He knows."]),
        ("心跳是 30 秒。逾時是 2.5 秒！", ["心跳是 30 秒。", "逾時是 2.5 秒！"]),
        ("- first item\n- second item", ["- first item", "- second item"]),
        ("Version 2.", ["Version 2."]),
    ],
)
def test_sentences(text: str, expected: list[str]) -> None:
    assert list(sentences(text)) == expected


def test_clauses() -> None:
    assert clauses("Always use pnpm, never npm") == ["Always use pnpm", "never npm"]
    assert clauses("一律使用 pnpm，禁止使用 npm") == ["一律使用 pnpm", "禁止使用 npm"]


@pytest.mark.parametrize(
    ("a", "b", "reason"),
    [
        (
            "Priya and Tom ran the onboarding workshop.",
            "Li Wei and Tom ran the onboarding workshop.",
            'different person in "… and Tom ran the onboarding workshop": Priya vs Li Wei',
        ),
        (
            "The payments service is owned by team Atlas.",
            "The payments service is owned by team Orion.",
            'different team in "The payments service is owned by team …": Atlas vs Orion',
        ),
        ("We deploy with Argo CD.", "We now deploy with Flux.", None),
        ("支付服務由 Atlas 團隊負責。", "支付服務由 Orion 團隊負責。", None),
        ("新人培訓由王芳和 Tom 主持。", "新人培訓由李偉和 Tom 主持。", None),
        ("The Q3 offsite takes place in Lisbon.", "The Q3 offsite takes place in Porto.", None),
        ("主資料庫部署在法蘭克福區域。", "主資料庫部署在都柏林區域。", None),
        ("The release freeze starts on Monday.", "The release freeze starts on Wednesday.", None),
        ("衝刺展示每週四下午舉行。", "衝刺展示每週五下午舉行。", None),
        ("The on-call rotation has 6 engineers.", "The on-call rotation has 8 engineers.", None),
        (
            "The shared cluster runs Kubernetes 1.28.",
            "The shared cluster runs Kubernetes 1.30.",
            None,
        ),
        ("SOC 2 稽核員的窗口是蔡佩君。", "SOC 2 稽核員的窗口現在是蘇建宏。", None),
    ],
)
def test_a_changed_value_in_an_unchanged_frame(a: str, b: str, reason: str | None) -> None:
    verdict = classify(a, b, similarity=0.8)
    assert verdict.kind == CONTRADICTS, verdict
    if reason is not None:
        assert verdict.reason == reason


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # The same people in another relation.
        (
            "Priya and Tom ran the onboarding workshop.",
            "Priya and Tom wrote the onboarding guide.",
        ),
        ("王芳和 Tom 主持新人培訓。", "王芳和 Tom 寫了新人入門指南。"),
        # The same frame about another subject: two spans differ.
        (
            "The payments service is owned by team Atlas.",
            "The ledger service is owned by team Orion.",
        ),
        ("Session tokens expire after 12 hours.", "Refresh tokens expire after 30 days."),
        ("The web app targets Node 20.", "The build tooling targets Node 22."),
        ("設計團隊在廣州辦公室上班。", "財務團隊在南京辦公室上班。"),
        # The changed name is the subject and the rest pins nothing down.
        ("Team Atlas meets on Mondays.", "Team Orion meets on Mondays."),
        # A project's name is what the statement is about, not a value of it.
        ("Priya leads Project Heron.", "Priya leads Project Falcon."),
        # An added detail, an added person.
        ("We deploy with Argo CD.", "We deploy with Argo CD and keep manifests in git."),
        ("Priya ran the onboarding workshop.", "Priya and Tom ran the onboarding workshop."),
        # One value in two notations.
        ("The resizer job gets a 1024Mi memory limit.", "The resizer job gets a 1Gi memory limit."),
    ],
)
def test_not_contradictions(a: str, b: str) -> None:
    verdict = classify(a, b, similarity=0.8)
    assert verdict.kind != CONTRADICTS, verdict


# -- instructions in the imperative (contradictions in imperative procedures) ------------------


@pytest.mark.parametrize(
    ("a", "b", "reason"),
    [
        (
            "Roll back payments with 'helm rollback payments' within ten minutes.",
            "Roll back payments with Argo CD's UI history, never with helm rollback: helm "
            "rollback payments breaks the Argo sync.",
            "opposite instructions to roll back payments: with helm/rollback in one, never in "
            "the other",
        ),
        (
            "Run migrations with alembic.",
            "Never run migrations with alembic; use sqitch.",
            "opposite instructions to run migrations: with alembic in one, never in the other",
        ),
        (
            "Restart the worker with systemctl.",
            "Do not restart the worker with systemctl, use supervisorctl.",
            "opposite instructions to restart worker: with systemctl in one, never in the other",
        ),
        (
            "Format Python code with black before committing.",
            "Format Python code with ruff format before committing, not black.",
            "opposite instructions to format Python code: with black in one, never in the other",
        ),
        (
            "用 helm 回滾。",
            "不要用 helm 回滾。",
            "opposite instructions (用 helm 回滾 / 不要用 helm 回滾): with helm in one, never in "
            "the other",
        ),
        (
            "用 GPG 金鑰簽署提交。",
            "用 SSH 金鑰簽署提交，不要用 GPG。",
            "opposite instructions (用 GPG 金鑰簽署提交 / 不要用 GPG): with gpg in one, never in "
            "the other",
        ),
    ],
)
def test_opposite_instructions_in_the_imperative(a: str, b: str, reason: str) -> None:
    for x, y in ((a, b), (b, a)):
        verdict = classify(x, y, similarity=0.85)
        assert (verdict.kind, verdict.reason) == (CONTRADICTS, reason)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # A warning that agrees with the instruction, and a statement that is no instruction.
        ("Never use helm rollback on payments.", "helm rollback breaks the Argo sync."),
        ("Run migrations with sqitch.", "Never run migrations with alembic."),
        # The same template for another service or subject.
        ("Deploy billing with Argo CD.", "Never deploy payments by hand."),
        (
            "Roll back billing with helm rollback billing.",
            "Roll back payments with Argo CD's history, never with helm rollback payments.",
        ),
        (
            "Tag releases of the CLI from main.",
            "Tag releases of the server from the release branch, never from main.",
        ),
        (
            "用 systemctl 重啟 mailer。",
            "不要用 systemctl 重啟 scheduler，它跑在 supervisord 底下。",
        ),
        # The same tool, a warning about another action; an instruction with a detail added.
        (
            "Seed the local database with make seed.",
            "make seed drops the local database first, so never run it against staging.",
        ),
        (
            "Run migrations with alembic.",
            "Run migrations with alembic upgrade head, never after the app starts.",
        ),
        ("用 cert-manager 輪替憑證。", "不要手動刪除 cert-manager 的 secret。"),
        # The same rule reworded: "and never by hand" is no part of the means.
        (
            "Deploy the payments service with Argo CD, never by hand.",
            "Deploy the payments service using Argo CD and never by hand.",
        ),
    ],
)
def test_instructions_that_agree_are_not_contradictions(a: str, b: str) -> None:
    for x, y in ((a, b), (b, a)):
        assert classify(x, y, similarity=0.85).kind != CONTRADICTS


@pytest.mark.parametrize(
    ("a", "b", "contradicts"),
    [
        # A negation about a named subject is about that subject only.
        ("Use Redis for caching API responses.", "Session tokens no longer live in Redis.", False),
        ("Store session tokens in Redis.", "Session tokens no longer live in Redis.", True),
        ("Payments use Kafka for events.", "Payments no longer use Kafka for events.", True),
        ("Always use pnpm, never npm.", "Never use pnpm; use npm.", True),  # no subject at all
    ],
)
def test_a_negation_speaks_of_its_own_subject(a: str, b: str, contradicts: bool) -> None:
    for x, y in ((a, b), (b, a)):
        assert (classify(x, y, similarity=0.8).kind == CONTRADICTS) is contradicts
