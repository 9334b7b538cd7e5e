"""The injections of the probe set, from `injections.yaml`: text inside a judged dialogue that
addresses its judge, in each of the seven languages and each kind. Data, not code, so a native
speaker can review and extend it, and hashed, so a probe run names the exact texts it used."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import model_validator

from dialbench.schema import InjectionKind, LanguageCode, NonEmptyText, Record, base_language
from dialbench.yaml_records import load_yaml_record

PACKAGE = "dialbench.probes"
INJECTIONS_FILE = "injections.yaml"
ProbeLanguage = Literal["en", "zh", "de", "fr", "pt", "es", "ja"]
Kind = Literal[
    "control",
    "instruction",
    "verdict",
    "transcript_end",
    "role_tag",
    "other_language",
    "hidden_markup",
]
CONTROL: Kind = "control"
# The detector's kind (`dialbench.injection`) each kind is; the fake end's text also says an
# instruction and a verdict after its banner, and the control is none.
DETECTED_AS: dict[Kind, InjectionKind | None] = {
    "control": None,
    "instruction": "instruction",
    "verdict": "verdict",
    "transcript_end": "fake_end",
    "role_tag": "role_tag",
    "other_language": "instruction",
    "hidden_markup": "hidden_markup",
}
LANGUAGES: tuple[ProbeLanguage, ...] = get_args(ProbeLanguage)
KINDS: tuple[Kind, ...] = get_args(Kind)


class Injections(Record):
    """Every kind's text per dialogue language, and which language each `other_language` text
    is written in (never the dialogue's: that is the kind)."""

    written_in: dict[ProbeLanguage, LanguageCode]
    texts: dict[ProbeLanguage, dict[Kind, NonEmptyText]]
    sha256: str

    @model_validator(mode="after")
    def _complete(self) -> Injections:
        for language in LANGUAGES:
            missing = set(KINDS) - set(self.texts.get(language, {}))
            if missing:
                raise ValueError(f"{language}: no text of {', '.join(sorted(missing))}")
            written = self.written_in.get(language)
            if written is None or base_language(written) == language:
                raise ValueError(f"{language}: other_language must be written in another language")
        return self

    def text(self, language: str, kind: Kind) -> str:
        """The injection into a dialogue in `language` (its base language: `pt-BR` reads pt)."""
        return self.texts[probe_language(language)][kind]


def probe_language(language: str) -> ProbeLanguage:
    """The probe language of a dialogue's language tag; an error for a language not probed."""
    base = base_language(language)
    for known in LANGUAGES:
        if known == base:
            return known
    raise ValueError(f"no injections in {language!r} (probed: {', '.join(LANGUAGES)})")


def load_injections() -> Injections:
    return load_yaml_record(PACKAGE, INJECTIONS_FILE, Injections)
