"""Finds judge-directed text in a dialogue's turns with the patterns of `patterns.yaml`.

A flag is information for whoever reads the verdict, never a verdict of its own: a judgment
of a flagged turn is stored as its judge answered, with the flags beside it. Patterns rather
than a model, so the detector costs microseconds a turn, runs on every judgment, reads every
language alike and can be reviewed line by line; `benchmarks/injection_detector.py` prints what
that buys and misses (recall on the probe set, false alarms on dialogues that contain none).
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from typing import Literal

from pydantic import Field

from dialbench.schema import Dialogue, InjectionFlag, InjectionKind, Record
from dialbench.yaml_records import load_yaml_record

PACKAGE = "dialbench.injection"
PATTERNS_FILE = "patterns.yaml"
EXCERPT_CHARS = 120
_BEFORE = 30
_INVISIBLE = re.compile(r"[\u200b-\u200f\u2060-\u2064\ufeff\u202a-\u202e\u2066-\u2069]")
_WHITESPACE = re.compile(r"\s+")
SaidKind = Literal["instruction", "verdict", "role_tag", "transcript_forgery", "fake_end"]


class DetectorPatterns(Record):
    """`patterns.yaml`: what hides, read on the text as written, and what is said to the judge
    per kind, read on the text as a reader sees it."""

    hidden: list[re.Pattern[str]] = Field(min_length=1)
    said: dict[SaidKind, list[re.Pattern[str]]]
    sha256: str


@cache
def _patterns() -> list[tuple[InjectionKind, bool, re.Pattern[str]]]:
    """(kind, read as written, pattern), in the order of `InjectionKind`."""
    patterns = load_yaml_record(PACKAGE, PATTERNS_FILE, DetectorPatterns)
    found: list[tuple[InjectionKind, bool, re.Pattern[str]]] = []
    for kind, said in patterns.said.items():
        found.extend((kind, False, pattern) for pattern in said)
    found.extend(("hidden_markup", True, pattern) for pattern in patterns.hidden)
    return found


def patterns_sha256() -> str:
    """The hash of the patterns file, for the provenance of figures measured with it."""
    return load_yaml_record(PACKAGE, PATTERNS_FILE, DetectorPatterns).sha256


def as_read(text: str) -> str:
    """The text as a reader sees it: NFKC-normalised, invisible characters taken out."""
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))


def _excerpt(text: str, found: re.Match[str]) -> str:
    around = text[max(0, found.start() - _BEFORE) : found.start() + EXCERPT_CHARS]
    return _WHITESPACE.sub(" ", as_read(around)).strip()[:EXCERPT_CHARS]


def turn_flags(text: str, turn_index: int, dialogue_id: str | None = None) -> list[InjectionFlag]:
    """One flag per kind found in a turn's text, at its first match."""
    read = as_read(text)
    flags: dict[InjectionKind, InjectionFlag] = {}
    for kind, as_written, pattern in _patterns():
        if kind in flags:
            continue
        source = text if as_written else read
        found = pattern.search(source)
        if found is not None:
            flags[kind] = InjectionFlag(
                turn_index=turn_index,
                kind=kind,
                excerpt=_excerpt(source, found),
                dialogue_id=dialogue_id,
            )
    return list(flags.values())


def injection_flags(dialogue: Dialogue, *, with_id: bool = False) -> list[InjectionFlag]:
    """Every turn's flags in turn order; `with_id` names the dialogue on each (for a judgment
    of two dialogues)."""
    dialogue_id = dialogue.id if with_id else None
    return [
        flag
        for index, turn in enumerate(dialogue.turns)
        for flag in turn_flags(turn.text, index, dialogue_id)
    ]
