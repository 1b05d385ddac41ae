"""How a near-identical pair may be worded otherwise and still say one thing, and where the
same words say another thing (issue 38, `memkit.audit.wording`): each rule read through the
one verdict, with a cosine as high as a static model gives such pairs."""

from __future__ import annotations

import pytest

from memkit.audit import wording
from memkit.audit.verdict import CONTRADICTS, DUPLICATE, EXTENDS, verdict

ASK_FIRST = (
    "Transfer the task changes to a linked worktree, or ask the user before using the "
    "explicit `CODEX_ALLOW_SHARED` escape hatch."
)
ASK_FIRST_FOR_BOTH = (
    "Ask the user before transferring task changes to a linked worktree or using the "
    "explicit `CODEX_ALLOW_SHARED` escape hatch."
)


def test_a_condition_that_now_governs_other_words_is_an_update_never_a_duplicate() -> None:
    """The same words reordered, but "before" now covers the transfer too: the rule changed."""
    found = verdict(ASK_FIRST_FOR_BOTH, ASK_FIRST, similarity=0.99)
    assert found.kind == CONTRADICTS, found
    assert "before using" in found.reason and "before transferring" in found.reason


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # The condition moves with what it governs: one rule in other words.
        ("Run `make migrate` before deploying the API.", "Before deploying the API, run `make migrate`."),  # noqa: E501
    ],
)  # fmt: skip
def test_a_condition_moved_with_what_it_governs_is_still_one_rule(a: str, b: str) -> None:
    assert verdict(b, a, similarity=0.97).kind == DUPLICATE


def test_a_condition_added_is_a_detail_not_a_changed_rule() -> None:
    found = verdict(
        "The web app targets Node 20.",
        "The web app targets Node 20; run nvm use before building.",
        similarity=0.95,
    )
    assert found.kind != CONTRADICTS, found


def test_one_word_inflected_or_repeated_is_one_word() -> None:
    old = "`packages/agents`: A convenience bundle exporting core and OpenAI packages."
    new = "`packages/agents`: Convenience bundle that re-exports core and OpenAI packages."
    assert verdict(new, old, similarity=0.97).kind == DUPLICATE


@pytest.mark.parametrize(
    ("x", "y", "same"),
    [
        ("exporting", "re-exports", True),
        ("committing", "commit", True),
        ("tagged", "tag", True),
        ("changes", "change", True),
        ("library", "proc", False),
        ("ruff_cli", "ruff", False),  # identifiers are values, never inflections
        ("flake8", "flake", False),
    ],
)
def test_same_lemma(x: str, y: str, same: bool) -> None:
    assert wording.same_lemma(x, y) is same


def test_a_chinese_character_closing_a_word_makes_another_word() -> None:
    """插件 (plugins) / 插件集 (plugin sets): another thing, never a duplicate."""
    old = "指定 `umi` 命令执行时额外加载的插件的路径，使用 `,` 隔开。"
    new = "指定 `umi` 命令执行时额外加载插件集的路径，使用 `,` 隔开。"
    found = verdict(new, old, similarity=0.99)
    assert found.kind == EXTENDS and found.near, found


def test_a_noun_that_can_be_a_verb_substituted_is_another_thing() -> None:
    """ "push" and "merge" are verbs too; after "every" they name events: an update."""
    found = verdict("Tests run on every merge.", "Tests run on every push.", similarity=0.97)
    assert found.kind == CONTRADICTS, found
    assert "push" in found.reason and "merge" in found.reason


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Pre-commit formatting: ALWAYS make sure to run pre-commit before making PRs.", "**Run pre-commit hooks** before making PRs"),  # noqa: E501
        ("Make sure to run `make lint` before committing.", "Run `make lint` before committing."),
        ("LLaMA Factory follows the [Google Python Style Guide](https://google.github.io/styleguide/pyguide.html), check it for details.", "Follow the [Google Python Style Guide](https://google.github.io/styleguide/pyguide.html)"),  # noqa: E501
    ],
)  # fmt: skip
def test_a_lead_in_that_states_nothing_of_its_own_is_wording(old: str, new: str) -> None:
    found = verdict(new, old, similarity=0.95)
    assert found.kind == DUPLICATE, found


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Production: deploy with Argo CD.", "Deploy with Argo CD."),  # a label of its own
        ("Alice follows the style guide.", "Follow the style guide."),  # a person, not the project
    ],
)
def test_a_lead_in_naming_something_else_is_no_wording(old: str, new: str) -> None:
    assert verdict(new, old, similarity=0.95).kind != DUPLICATE


def test_another_package_installed_is_another_member_not_an_update() -> None:
    found = verdict(
        "pip install -r requirements-dev.lock", "uv pip install browser-use", similarity=0.95
    )
    assert found.kind == EXTENDS and not found.near, found


def test_a_package_version_installed_is_still_an_update() -> None:
    found = verdict(
        "npm install -g react-devtools@4.29.0",
        "npm install -g react-devtools@4.28.5",
        similarity=0.95,
    )
    assert found.kind == CONTRADICTS, found


def test_two_names_of_one_family_are_a_value() -> None:
    """`ai-core` / `ai-functions` in a list of examples: a renamed entry, an update."""
    old = "| `examples/` | Example applications (ai-core, next-openai, etc.) |"
    new = "| `examples/` | Example applications (ai-functions, next-openai, etc.) |"
    found = verdict(new, old, similarity=0.97)
    assert found.kind == CONTRADICTS and "ai-functions" in found.reason, found
    assert not wording.kin("re-export", "re-exports")
