"""Which language a text is in, told offline by lingua: the language of a logged conversation
(its user's turns), and the one place the simulator's checks of user turns build on.

lingua (a dependency: its n-gram models ship inside the wheel) is imported on first use, so
detecting a file's format loads no language models; a detector is built per candidate set and
kept per process.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING

from dialbench.schema import base_language

if TYPE_CHECKING:
    from lingua import Language, LanguageDetector

# A logged conversation's candidates: the project's languages and their common confusions.
CANDIDATES = ("en", "zh", "de", "fr", "pt", "es", "it", "nl", "ja", "ko", "ru", "pl", "tr")
# Below these, the text is too short to tell close languages (es/pt) apart.
MIN_WORDS = 4
MIN_CJK_CHARACTERS = 4
MIN_CONFIDENCE = 0.5
# Enough to tell the language, and what a long conversation costs no more than a short one.
MAX_CHARACTERS = 400


def lingua_language(tag: str) -> Language | None:
    """lingua's language for a BCP-47 tag (`pt-BR` -> Portuguese), None where it knows none."""
    from lingua import IsoCode639_1, Language

    try:
        return Language.from_iso_code_639_1(IsoCode639_1.from_str(base_language(tag)))
    except ValueError:
        return None


@cache
def _detector(candidates: frozenset[Language]) -> LanguageDetector:
    from lingua import LanguageDetectorBuilder

    return LanguageDetectorBuilder.from_languages(*candidates).build()


def long_enough(text: str, *, min_words: int, min_cjk_characters: int) -> bool:
    """Short texts ("ok", "谢谢") are too ambiguous to identify reliably."""
    cjk = sum("\u3040" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" for ch in text)
    return cjk >= min_cjk_characters or len(text.split()) >= min_words


def confident_language(text: str, tags: Iterable[str], min_confidence: float) -> str | None:
    """The ISO 639-1 code of the language among `tags` that `text` is in with at least
    `min_confidence`, or None (no language clearly ahead, or fewer than two to tell apart)."""
    candidates = {language for tag in tags if (language := lingua_language(tag)) is not None}
    if len(candidates) < 2:
        return None
    best = _detector(frozenset(candidates)).compute_language_confidence_values(text)[0]
    return best.language.iso_code_639_1.name.lower() if best.value >= min_confidence else None


def language_of(texts: list[str]) -> str | None:
    """The ISO 639-1 code of the language the user wrote in, or None when it cannot be told
    (too little text, or no language clearly ahead)."""
    text = "\n".join(texts)[:MAX_CHARACTERS]
    if not long_enough(text, min_words=MIN_WORDS, min_cjk_characters=MIN_CJK_CHARACTERS):
        return None
    return confident_language(text, CANDIDATES, MIN_CONFIDENCE)
