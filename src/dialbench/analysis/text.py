"""Counting text the way each language needs: words for most, characters for Chinese and
Japanese; tokens for lexical diversity from jieba for Chinese."""

from __future__ import annotations

import logging
import unicodedata
from functools import cache
from types import ModuleType

from dialbench.schema import base_language

CHARACTER_LANGUAGES = frozenset({"zh", "ja"})


@cache
def _jieba() -> ModuleType:
    """jieba, imported when Chinese is first cut: its import (pkg_resources and its tables) is
    a tenth of a second every command would otherwise pay at start."""
    import jieba

    jieba.setLogLevel(logging.WARNING)  # not "Building prefix dict ..." on every run
    module: ModuleType = jieba
    return module


@cache
def _lex_div() -> ModuleType:
    """lexical_diversity's tokenizer and MTLD, imported at first use for the same reason: it
    imports pkg_resources."""
    from lexical_diversity import lex_div

    module: ModuleType = lex_div
    return module


def chinese_words(text: str) -> list[str]:
    """jieba's cut of a Chinese text, spaces and punctuation among the tokens."""
    return list(_jieba().lcut(text))


def length_unit(language: str) -> str:
    return "characters" if base_language(language) in CHARACTER_LANGUAGES else "words"


def _is_word_character(char: str) -> bool:
    return not char.isspace() and not unicodedata.category(char).startswith("P")


def utterance_length(text: str, language: str) -> int:
    """Characters (no spaces or punctuation) for Chinese and Japanese, words for the rest."""
    if base_language(language) in CHARACTER_LANGUAGES:
        return sum(map(_is_word_character, text))
    return len(_lex_div().tokenize(text))


def tokens(text: str, language: str) -> list[str]:
    """Word tokens for lexical diversity: jieba for Chinese; characters for Japanese (no
    tokenizer without a 250 MB dictionary); lower-cased words elsewhere."""
    base = base_language(language)
    if base == "zh":
        return [t for t in chinese_words(text) if any(map(_is_word_character, t))]
    if base == "ja":
        return [c for c in text if _is_word_character(c)]
    return [t.lower() for t in _lex_div().tokenize(text)]


def mtld(words: list[str]) -> float | None:
    """MTLD (McCarthy and Jarvis 2010) over a token stream; None when there are no tokens."""
    if not words:
        return None
    return float(_lex_div().mtld(words))
