"""The post-generation filter on real multilingual text (DailyDialog post-edited translations)."""

from __future__ import annotations

import asyncio
import csv
from pathlib import Path

import pytest
from simulate_scripted import scripted

from dialbench.llm.runner import Runner
from dialbench.schema import Dialogue, Turn
from dialbench.simulate.filters import SWAPPED_ROLES, WRONG_LANGUAGE, check_dialogue, rule_checks
from dialbench.simulate.language import detected_language

LANGUAGES = ("en", "zh", "de", "fr", "pt", "es")


@pytest.fixture(scope="module")
def translations() -> dict[str, list[str]]:
    """Utterances of at least eight words in English, with their translations, by language."""
    path = Path(__file__).resolve().parents[3] / "shared" / "data"
    with (path / "dailydialog_test_post_edits_7lang.csv").open(encoding="utf-8") as stream:
        rows = [r for r in csv.DictReader(stream) if len(r["src"].split()) >= 8][:40]
    return {tag: [r["src" if tag == "en" else tag] for r in rows] for tag in LANGUAGES}


def conversation(language: str, user: list[str], bot: str = "OK.") -> Dialogue:
    turns = [
        t for text in user for t in (Turn(role="user", text=text), Turn(role="assistant", text=bot))
    ]
    return Dialogue(language=language, turns=turns)


@pytest.mark.parametrize("language", LANGUAGES)
def test_lingua_identifies_each_language_on_real_sentences(
    translations: dict[str, list[str]], language: str
) -> None:
    found = [detected_language(text, language) for text in translations[language]]
    identified = [f for f in found if f is not None]
    assert len(identified) >= 0.5 * len(found)
    assert sum(f == language for f in identified) >= 0.95 * len(identified)


def test_a_user_side_in_another_language_is_flagged(translations: dict[str, list[str]]) -> None:
    german_user = conversation("fr", translations["fr"][:2] + translations["de"][2:3])
    result = rule_checks(german_user)
    assert result.flags == [WRONG_LANGUAGE]
    assert result.details == ["turn 4: lingua says de"]


def test_a_chatbot_in_the_wrong_language_is_kept(translations: dict[str, list[str]]) -> None:
    english_bot = conversation("es", translations["es"][:3], bot=translations["en"][5])
    assert rule_checks(english_bot).flags == []


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "As an AI, I don't have feelings, but I can help you plan dinner."),
        ("zh", "作为一个人工智能，我可以帮你想想晚饭吃什么。"),
        ("de", "Wie kann ich Ihnen heute helfen?"),
        ("pt", "Como posso te ajudar hoje com o jantar?"),
    ],
)
def test_assistant_only_phrases_on_the_user_side_flag_swapped_roles(
    language: str, text: str
) -> None:
    assert SWAPPED_ROLES in rule_checks(conversation(language, [text])).flags


def test_the_llm_check_flags_from_yes_no_probabilities() -> None:
    def answer(request: object) -> str:
        return "No"

    runner = Runner(None, quiet=True)
    checker = scripted("filter", answer).model(runner, "filter")
    dialogue = conversation("en", ["I burned the rice again, any tricks to save it?"])
    result = asyncio.run(check_dialogue(dialogue, rules=False, llm=checker))
    assert result.flags == []
    assert "P(" not in " ".join(result.details)
