"""Affective states: a curated list balanced over the circumplex quadrants, and keyword detection.

MEDAL keeps the affective state a scene already expresses (Atomic10X xReact/xEffect relations often
carry one) and samples one otherwise, so casual dialogues are not all cheerful.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources

from pydantic import Field

from dialbench.schema import Record


class AffectLexicon(Record):
    quadrants: dict[str, list[str]] = Field(description="circumplex quadrant -> curated states")
    keywords: list[str] = Field(description="affective-state words to recognise in a scene")

    @property
    def states(self) -> list[str]:
        """The curated states, quadrant by quadrant (equal numbers in each)."""
        return [state for states in self.quadrants.values() for state in states]

    def quadrant_of(self, state: str) -> str | None:
        return next((q for q, states in self.quadrants.items() if state in states), None)


@cache
def affect_lexicon() -> AffectLexicon:
    text = (resources.files("dialbench.seeds") / "data" / "affect.json").read_text("utf-8")
    return AffectLexicon.model_validate(json.loads(text))


@cache
def _keyword_pattern() -> re.Pattern[str]:
    words = sorted(affect_lexicon().keywords, key=len, reverse=True)
    return re.compile(r"\b(" + "|".join(map(re.escape, words)) + r")\b", re.IGNORECASE)


def detect_affect(text: str) -> str | None:
    """The first affective-state word in `text` (English scene sentences), lower-cased."""
    found = _keyword_pattern().search(text)
    return found.group(1).lower() if found else None
