"""Seed contexts for simulation: scenes, personas, affective states, gender and language."""

from dialbench.seeds.affect import affect_lexicon, detect_affect
from dialbench.seeds.coverage import CoverageRow, coverage_table, crossed_coverage_table
from dialbench.seeds.gender import is_gender_neutral
from dialbench.seeds.loaders import SeedText, load_seed_texts, starter_texts
from dialbench.seeds.sampler import LanguageTarget, sample_contexts

__all__ = [
    "CoverageRow",
    "LanguageTarget",
    "SeedText",
    "affect_lexicon",
    "coverage_table",
    "crossed_coverage_table",
    "detect_affect",
    "is_gender_neutral",
    "load_seed_texts",
    "sample_contexts",
    "starter_texts",
]
