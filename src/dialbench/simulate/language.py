"""Language names for prompts and language identification of user turns, both from lingua.

lingua ships its n-gram models inside the wheel, so identification works offline; detectors are
built for a fixed candidate set (the targets plus common confusions) and kept per process.
"""

from __future__ import annotations

from functools import cache

from lingua import IsoCode639_1, Language, LanguageDetector, LanguageDetectorBuilder

from dialbench.schema import base_language

# Languages a user turn is most often confused with or slips into, besides the targets.
COMMON = ("en", "zh", "de", "fr", "pt", "es", "it", "nl", "ja", "ko", "ru")
# Below this, close languages (es/pt) are confused on real sentences; a slip into another
# language scores above 0.9.
MIN_CONFIDENCE = 0.8
MIN_WORDS = 4
MIN_CJK_CHARACTERS = 6


def _lingua(tag: str) -> Language | None:
    try:
        return Language.from_iso_code_639_1(IsoCode639_1.from_str(base_language(tag)))
    except ValueError:
        return None


def language_name(tag: str) -> str:
    """'zh' -> 'Chinese'; a tag lingua does not know is used as it is."""
    language = _lingua(tag)
    return language.name.title() if language is not None else tag


@cache
def _detector(candidates: frozenset[Language]) -> LanguageDetector:
    return LanguageDetectorBuilder.from_languages(*candidates).build()


def long_enough(text: str) -> bool:
    """Short turns ("ok", "谢谢") are too ambiguous to identify reliably."""
    cjk = sum("\u3040" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" for ch in text)
    return cjk >= MIN_CJK_CHARACTERS or len(text.split()) >= MIN_WORDS


def detected_language(text: str, target: str) -> str | None:
    """The ISO 639-1 code of the language `text` is confidently in, among target + COMMON."""
    candidates = {lang for tag in (target, *COMMON) if (lang := _lingua(tag)) is not None}
    if len(candidates) < 2 or not long_enough(text):
        return None
    best = _detector(frozenset(candidates)).compute_language_confidence_values(text)[0]
    if best.value < MIN_CONFIDENCE:
        return None
    return best.language.iso_code_639_1.name.lower()
