"""Language names for prompts and language identification of user turns, both from lingua
(`io/language.py`): detectors for a fixed candidate set, the target plus common confusions.
"""

from __future__ import annotations

from dialbench.io.language import confident_language, lingua_language, long_enough

# Languages a user turn is most often confused with or slips into, besides the targets.
COMMON = ("en", "zh", "de", "fr", "pt", "es", "it", "nl", "ja", "ko", "ru")
# Below this, close languages (es/pt) are confused on real sentences; a slip into another
# language scores above 0.9.
MIN_CONFIDENCE = 0.8
MIN_WORDS = 4
MIN_CJK_CHARACTERS = 6


def language_name(tag: str) -> str:
    """'zh' -> 'Chinese'; a tag lingua does not know is used as it is."""
    language = lingua_language(tag)
    return language.name.title() if language is not None else tag


def detected_language(text: str, target: str) -> str | None:
    """The ISO 639-1 code of the language `text` is confidently in, among target + COMMON;
    short turns ("ok", "谢谢") are too ambiguous to identify."""
    if not long_enough(text, min_words=MIN_WORDS, min_cjk_characters=MIN_CJK_CHARACTERS):
        return None
    return confident_language(text, (target, *COMMON), MIN_CONFIDENCE)
