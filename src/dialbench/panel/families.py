"""Model families by name (`families.yaml`): which family a model spec belongs to, and the
warning when a judge and a chatbot it judges share one. Kept on its own so the report can name
a shared family too."""

from __future__ import annotations

import re
from collections.abc import Iterable

from dialbench.schema import Record
from dialbench.yaml_records import load_yaml_record


class ModelFamilies(Record):
    families: dict[str, list[str]]
    sha256: str


def model_families() -> ModelFamilies:
    return load_yaml_record("dialbench.panel", "families.yaml", ModelFamilies)


def family_of(spec: str) -> str | None:
    """The family whose name appears in the spec as a word of its own (followed by a digit, a
    separator or the end, never by more letters), or None."""
    lowered = spec.lower()
    for family, names in model_families().families.items():
        if any(re.search(rf"(?<![a-z]){re.escape(name)}(?![a-z])", lowered) for name in names):
            return family
    return None


def shared_families(judges: Iterable[str], chatbots: Iterable[str]) -> list[str]:
    """One line per judge and chatbot of one family, naming both."""
    bots = sorted(set(chatbots))
    lines = []
    for judge in sorted(set(judges)):
        family = family_of(judge)
        if family is None:
            continue
        lines += [
            f"judge {judge} and chatbot {bot} share the model family {family}: a judge may "
            "favour its own family's answers"
            for bot in bots
            if family_of(bot) == family
        ]
    return lines
