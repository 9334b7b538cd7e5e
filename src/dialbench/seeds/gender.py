"""Rule-based gender detection: a binary gender is sampled only for gender-neutral texts.

Grammatically gendered languages (de, fr, pt, es) force the user to pick a gender; sampling one for
neutral contexts avoids a default-male bias, while a text that already names one keeps it.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources


@cache
def gendered_words() -> frozenset[str]:
    text = (resources.files("dialbench.seeds") / "data" / "gendered_words.txt").read_text("utf-8")
    lines = (line for line in text.splitlines() if not line.startswith("#"))
    return frozenset(word for line in lines for word in line.split())


def is_gender_neutral(text: str) -> bool:
    """True when no word of the text marks a gender (he, her, mother, waitress, ...)."""
    return not any(word in gendered_words() for word in re.findall(r"[a-z]+", text.lower()))
