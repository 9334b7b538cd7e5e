"""Seeded, reproducible sampling of seed contexts: scene x persona x affect x gender, per language.

Each sampled context is crossed with every language, as in MEDAL (400 scenes x 6 languages), so
languages are compared on the same situations and the culture, not the scene, varies.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from pydantic import Field

from dialbench.schema import LanguageCode, Record, SeedContext, base_language
from dialbench.seeds.affect import affect_lexicon, detect_affect
from dialbench.seeds.gender import is_gender_neutral
from dialbench.seeds.loaders import SeedText

DEFAULT_CULTURES = {
    "en": "United States",
    "zh": "China",
    "de": "Germany",
    "fr": "France",
    "pt": "Brazil",
    "es": "Spain",
    "ja": "Japan",
    "it": "Italy",
}


class LanguageTarget(Record):
    """A target language and the culture the user comes from (default: a typical country)."""

    language: LanguageCode
    culture: str | None = Field(default=None, description="country or region of the user")

    @property
    def resolved_culture(self) -> str | None:
        return self.culture or DEFAULT_CULTURES.get(base_language(self.language))


def _draw(rng: random.Random, items: Sequence[SeedText], n: int) -> list[SeedText]:
    """n items without repetition until the list is used up, then again in a new order."""
    drawn: list[SeedText] = []
    while len(drawn) < n:
        drawn += rng.sample(list(items), min(len(items), n - len(drawn)))
    return drawn


def _balanced_affects(rng: random.Random, n: int) -> list[tuple[str, str]]:
    """(quadrant, state) pairs cycling through the quadrants, so each gets an equal share."""
    quadrants = list(affect_lexicon().quadrants.items())
    pairs = []
    for i in range(n):
        if i % len(quadrants) == 0:
            rng.shuffle(quadrants)
        quadrant, states = quadrants[i % len(quadrants)]
        pairs.append((quadrant, rng.choice(states)))
    return pairs


def _origin(text: SeedText) -> str:
    return text.source if text.line is None else f"{text.source}:{text.line}"


def sample_contexts(
    scenes: Sequence[SeedText],
    personas: Sequence[SeedText],
    languages: Sequence[LanguageTarget],
    n: int,
    seed: int = 0,
) -> list[SeedContext]:
    """n contexts per language; the same seed gives the same contexts."""
    rng = random.Random(seed)
    lexicon = affect_lexicon()
    bases = []
    sampled = iter(_balanced_affects(rng, n))
    genders = (["female", "male"] * n)[:n]
    rng.shuffle(genders)
    for index, (scene, persona) in enumerate(
        zip(_draw(rng, scenes, n), _draw(rng, personas, n), strict=True)
    ):
        quadrant, state = next(sampled)
        found = detect_affect(scene.text)
        neutral = is_gender_neutral(scene.text) and is_gender_neutral(persona.text)
        gender = genders[index] if neutral else None
        bases.append(
            {
                "scene": scene.text,
                "persona": persona.text,
                "affective_state": found or state,
                "gender": gender,
                "metadata": {
                    "context_index": index,
                    "scene_origin": _origin(scene),
                    "persona_origin": _origin(persona),
                    "affect_origin": "scene" if found else "sampled",
                    "affect_quadrant": (lexicon.quadrant_of(found) or "unclassified")
                    if found
                    else quadrant,
                    "gender_origin": "sampled" if neutral else "text",
                },
            }
        )
    return [
        SeedContext(language=target.language, culture=target.resolved_culture, **base)
        for target in languages
        for base in bases
    ]
