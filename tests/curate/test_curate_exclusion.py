"""The mixed-language exclusion: the packaged keywords in six languages, and user keyword files
whose mistakes are reported at their line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialbench.curate.exclusion import load_keywords, mixed_language_keyword
from dialbench.curate.selection import Candidate
from dialbench.errors import DialbenchError
from tests.curate.known_store import MIXED_COMMENT, PLAIN_COMMENT


def candidate(language: str, comment: str, flagged: bool = True) -> Candidate:
    return Candidate(
        dialogue_id="d-1",
        language=language,
        user="u",
        chatbot="b",
        issues=frozenset({"uninterpretable"} if flagged else {"repetitive"}),
        overall=2,
        comments={"uninterpretable": comment},
    )


@pytest.mark.parametrize("language", sorted(MIXED_COMMENT))
def test_packaged_keywords_find_mixed_languages_in_six_languages(language: str) -> None:
    keywords = load_keywords()
    assert mixed_language_keyword(candidate(language, MIXED_COMMENT[language]), keywords)
    assert mixed_language_keyword(candidate(language, PLAIN_COMMENT), keywords) is None
    flag_off = candidate(language, MIXED_COMMENT[language], flagged=False)
    assert mixed_language_keyword(flag_off, keywords) is None


def test_regional_tags_use_their_base_language_and_english_comments_match_too() -> None:
    keywords = load_keywords()
    assert mixed_language_keyword(candidate("pt-BR", "a resposta mistura Espanhol"), keywords)
    assert mixed_language_keyword(candidate("zh-Hant", "Reply 2 is in English"), keywords)
    assert mixed_language_keyword(candidate("en", "Reply 2 is in English"), keywords) is None


def test_a_user_file_replaces_the_packaged_list(tmp_path: Path) -> None:
    path = tmp_path / "words.yaml"
    path.write_text("comments_of: [uninterpretable]\nkeywords:\n  EN: [Klingon]\n", "utf-8")
    keywords = load_keywords(path)
    assert keywords.keywords == {"en": ["klingon"]}
    assert keywords.sha256 != load_keywords().sha256
    assert mixed_language_keyword(candidate("en", "turn 2 is in KLINGON"), keywords) == "klingon"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "comments_of: [uninterpretable]\nkeywords:\n  en: [a, b\n",
            "words.yaml:4: not valid YAML",
        ),
        (
            "comments_of: []\nkeywords:\n  en: [other language]\n",
            "words.yaml:1: field 'comments_of'",
        ),
        (
            "comments_of: [uninterpretable]\nkeywords:\n  en:\n    - other language\n    - ''\n",
            "words.yaml:5: field 'keywords.en.1'",
        ),
        (
            "comments_of: [uninterpretable]\nkeywords:\n  not a language!: [x]\n",
            "not a valid BCP-47 language tag",
        ),
        ("- just a list\n", "words.yaml: a keyword list is a YAML mapping"),
    ],
)
def test_bad_keyword_files_are_located(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "words.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DialbenchError) as raised:
        load_keywords(path)
    assert expected in str(raised.value)
    assert "\n" not in str(raised.value).strip()
