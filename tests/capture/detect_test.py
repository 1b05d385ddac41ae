"""L0: the capture rules on prompts, English and Chinese (their measure is the benchmark)."""

from __future__ import annotations

import pytest

from memkit.capture.detect import detect, sentences, triggers_of
from memkit.capture.settings import DROP, QUEUE, WRITE, CaptureSettings, parse


def score(text: str) -> float:
    found = detect(text)
    return found.score if found else 0.0


@pytest.mark.parametrize(
    ("text", "kind", "atom_type"),
    [
        ("from now on we deploy with Argo CD, never by hand", "decision", "decision"),
        ("We use pnpm in this repo, not npm.", "convention", "decision"),
        ("I prefer early returns over nested ifs.", "preference", "preference"),
        (
            "Careful: `npm ci` fails behind the proxy unless HTTPS_PROXY is set.",
            "pitfall",
            "pitfall",
        ),
        ("No, the config lives in config/settings.toml, not in .env.", "correction", "fact"),
        ("記住，以後部署一律用 Argo CD，不要手動部署。", "decision", "decision"),
        ("我們統一用 pnpm，不要再用 npm 了。", "convention", "decision"),
        ("我比較喜歡用 early return。", "preference", "preference"),
        ("注意：測試環境的資料庫每天凌晨兩點會被清空。", "pitfall", "pitfall"),
    ],
)
def test_decisions_conventions_preferences_pitfalls_score_high(
    text: str, kind: str, atom_type: str
) -> None:
    found = detect(text)
    assert found is not None and found.score >= 0.5, found
    assert found.kind == kind and found.type == atom_type


@pytest.mark.parametrize(
    "text",
    [
        "I'll never get this right.",
        "I always mess up the rebase step.",
        "Why does the build always fail on CI?",
        "What if we always cached the results?",
        "He said we should never use threads, is that true?",
        "Thanks, that worked!",
        "Can you fix the failing test in test_parser.py?",
        "ok so please always use `uv` for installs, and can you fix the test?",  # mixed
        "我永遠學不會正則表達式。",
        "為什麼這裡總是回傳 None？",
        "謝謝，可以了！",
        "幫我修一下失敗的測試。",
        "Never mind, I figured it out.",
    ],
)
def test_requests_questions_thanks_and_emotional_remarks_score_low(text: str) -> None:
    assert score(text) < 0.5


def test_the_statement_is_the_sentence_that_says_it() -> None:
    found = detect(
        "Quick one. From now on we deploy with Argo CD, never by hand. Now list the files."
    )
    assert found is not None
    assert found.statement == "From now on we deploy with Argo CD, never by hand."
    assert found.triggers == ("argo cd",)
    assert "from now on" in found.why.lower()


def test_code_and_pasted_logs_are_not_read_as_rules() -> None:
    text = "Here is the log:\n```\nnever retry; always crash\n```\n    always = True\n"
    assert score(text) < 0.5
    assert sentences("a\n```\nnever\n```\nb") == ["a", "b"]


def test_a_first_person_preference_is_personal_and_a_team_one_shared() -> None:
    mine = detect("I prefer tabs in Makefiles.")
    ours = detect("We prefer tabs in all Makefiles.")
    assert mine is not None and mine.scope == "personal"
    assert ours is not None and ours.scope == "shared"


def test_triggers_are_names_paths_and_code_never_stop_words() -> None:
    assert triggers_of("Use `make lint` and PostgreSQL 16 in config/db.yaml, always.") == (
        "make lint",
        "postgresql",
        "config/db.yaml",
    )
    assert triggers_of("Always do it. Never do that.") == ()


def test_the_router_drops_queues_and_writes_only_when_asked() -> None:
    off = CaptureSettings()
    assert [off.route(s) for s in (0.2, 0.5, 0.95)] == [DROP, QUEUE, QUEUE]
    on = parse({"router": {"lower": 0.6, "upper": 0.8, "write_personal": True}})
    assert [on.route(s) for s in (0.59, 0.6, 0.79, 0.8)] == [DROP, QUEUE, QUEUE, WRITE]
    # Wrong values keep their defaults; upper is never below lower.
    bad = parse({"router": {"lower": "high", "upper": 2}, "episodic": {"expires_days": -1}})
    assert (bad.lower, bad.upper, bad.expires_days) == (0.5, 0.9, 24)
    assert parse({"router": {"lower": 0.7, "upper": 0.3}}).upper == 0.7
    # The model is off unless enabled with a model name; a key never enters the settings.
    assert parse({"model": {"model": "m"}}).model == {}
    model = parse({"model": {"enabled": True, "model": "m", "api_key": "sk-x"}}).model
    assert model == {"enabled": True, "model": "m"}


def test_the_template_s_capture_section_is_the_defaults() -> None:
    from pathlib import Path

    import yaml

    template = Path(__file__).resolve().parents[2] / "memory_template" / "memkit.yaml"
    data = yaml.safe_load(template.read_text(encoding="utf-8"))
    assert parse(data["capture"]) == CaptureSettings()
