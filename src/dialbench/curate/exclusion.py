"""The filtering step of curation: dialogues whose judge comments say that another language,
mixed into the chatbot's turns, made them uninterpretable. Rules catch those easily, so they
are not what a benchmark of judges needs (MEDAL §5.1)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, field_validator

from dialbench.curate.selection import Candidate
from dialbench.hashing import sha256_text
from dialbench.schema import NonEmptyText, Record, base_language, standard_language_tag
from dialbench.yaml_config import load_yaml_config
from dialbench.yaml_records import load_yaml_record

KEYWORDS_FILE = "mixed_language_keywords.yaml"


class MixedLanguageKeywords(Record):
    """Per base language, the keywords that mark a comment; `comments_of` names the issues whose
    comments are searched (only when the judge flagged the issue)."""

    comments_of: list[NonEmptyText] = Field(min_length=1)
    keywords: dict[str, list[NonEmptyText]]
    sha256: str = ""

    @field_validator("keywords")
    @classmethod
    def _by_base_language(cls, keywords: dict[str, list[str]]) -> dict[str, list[str]]:
        merged: dict[str, list[str]] = {}
        for tag, words in keywords.items():
            language = base_language(standard_language_tag(tag))
            merged.setdefault(language, []).extend(word.casefold() for word in words)
        return merged


def load_keywords(path: Path | None = None) -> MixedLanguageKeywords:
    """The packaged keyword list, or the user's file (errors name its line and field)."""
    if path is None:
        return load_yaml_record("dialbench.curate", KEYWORDS_FILE, MixedLanguageKeywords)
    loaded = load_yaml_config(
        path, MixedLanguageKeywords, "a keyword list", "comments_of:, keywords:"
    )
    return loaded.model_copy(update={"sha256": sha256_text(path.read_text(encoding="utf-8"))})


def mixed_language_keyword(candidate: Candidate, keywords: MixedLanguageKeywords) -> str | None:
    """The first keyword found in a searched comment of the dialogue, if any."""
    words = keywords.keywords.get(base_language(candidate.language), [])
    for issue in keywords.comments_of:
        if issue not in candidate.issues:
            continue
        comment = candidate.comments.get(issue, "").casefold()
        found = next((word for word in words if word in comment), None)
        if found is not None:
            return found
    return None
