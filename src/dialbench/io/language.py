"""The language of a logged conversation, told from its user's turns.

Production logs name no language, and a dialogue needs one. lingua (a dependency already: the
simulator validates user turns with it) ships its models inside the wheel, so this works offline;
its detector is built for a fixed set of languages, the project's and their common confusions.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lingua import LanguageDetector

CANDIDATES = ("en", "zh", "de", "fr", "pt", "es", "it", "nl", "ja", "ko", "ru", "pl", "tr")
# Below these, the text is too short to tell close languages (es/pt) apart.
MIN_WORDS = 4
MIN_CJK_CHARACTERS = 4
MIN_CONFIDENCE = 0.5
# Enough to tell the language, and what a long conversation costs no more than a short one.
MAX_CHARACTERS = 400


@cache
def _detector() -> LanguageDetector:
    """Built on first use: detecting a file's format loads no language models."""
    from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

    languages = [Language.from_iso_code_639_1(IsoCode639_1.from_str(tag)) for tag in CANDIDATES]
    return LanguageDetectorBuilder.from_languages(*languages).build()


def _long_enough(text: str) -> bool:
    cjk = sum("\u3040" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" for ch in text)
    return cjk >= MIN_CJK_CHARACTERS or len(text.split()) >= MIN_WORDS


def language_of(texts: list[str]) -> str | None:
    """The ISO 639-1 code of the language the user wrote in, or None when it cannot be told
    (too little text, or no language clearly ahead)."""
    text = "\n".join(texts)[:MAX_CHARACTERS]
    if not _long_enough(text):
        return None
    best = _detector().compute_language_confidence_values(text)[0]
    return best.language.iso_code_639_1.name.lower() if best.value >= MIN_CONFIDENCE else None
