"""Prompts in the dialogue's language (`dialbench judge --prompt-language dialogue`).

English is the default, as in MEDAL. Under `dialogue`, an item is asked in its dialogue's
language where the protocol ships a translation into it, a folder of that language beside its
English files holding every one of them: the language in its script where the protocol ships
that (`zh-TW`, `zh-HK` and `zh-Hant` read `zh-Hant`), else the language alone (`pt-BR` reads
`pt`, `zh-CN` reads `zh`); any other language reads English. The configuration of such
judgments holds the hashes of every language the protocol ships, so one judge under one
protocol stays one rater whatever the dialogues' languages (`PromptFiles.hashes`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Literal

import langcodes

from dialbench.prompts import Prompt, load_prompt, translated_languages
from dialbench.schema import base_language

PromptLanguage = Literal["en", "dialogue"]
SHARED_PROMPTS = "dialbench.prompts"
# What a translation must keep of its English file: placeholders, literal braces, JSON keys, the
# answers' literal values (`: "Both"`) and the answers quoted in prose (`"Choice: Yes"`).
_MARKS = re.compile(
    r'\{\{|\}\}|\{\w*\}|"\w+"(?=\s*:)|(?<=: )"[A-Za-z0-9 ]+"|"(?:Choice|Index): [^"]*"|[{}]'
)


def template_marks(text: str) -> Counter[str]:
    """The placeholders (`{context}`), braces, JSON keys (`"score":`) and literal answers
    (`"Conversation 1"`, `"Choice: Yes"`) of a template: a translation has exactly its English
    file's."""
    return Counter(_MARKS.findall(text))


@cache
def _written_forms(tag: str) -> tuple[str, ...]:
    """The translations that could ask a dialogue in `tag`, nearest first: its language in its
    script (the one the tag names, else the likely one: `zh-TW` is `zh-Hant`, `zh-CN` and `zh`
    are `zh-Hans`), then its language alone."""
    base, script = base_language(tag), langcodes.Language.get(tag).maximize().script
    return (f"{base}-{script}", base) if script else (base,)


@dataclass(frozen=True)
class PromptFiles:
    """A protocol's prompt files (those of its package) in the language it is set to ask in."""

    package: str
    setting: PromptLanguage = "en"

    def languages(self) -> tuple[str, ...]:
        """The translations asked from: every one the protocol ships, or none at `en`."""
        return translated_languages(self.package) if self.setting == "dialogue" else ()

    def language(self, tag: str) -> str | None:
        """The translation an item of a dialogue in `tag` is asked in; None for English."""
        shipped = self.languages()
        return next((form for form in _written_forms(tag) if form in shipped), None)

    def untranslated(self, tags: Iterable[str]) -> list[str]:
        """The dialogues' languages asked in English for want of a translation (none at `en`)."""
        if self.setting == "en":
            return []
        in_english = {base_language(tag) for tag in set(tags) if self.language(tag) is None}
        return sorted(in_english - {"en"})

    def load(self, name: str, tag: str, package: str | None = None) -> Prompt:
        """The prompt file `name` (of this package, or of `package`) for a dialogue in `tag`."""
        return load_prompt(name, package or self.package, self.language(tag))

    def hashes(self, *names: str, package: str | None = None) -> dict[str, str]:
        """The sha256 of each file in English and in every translation asked from, by name."""
        prompts = [
            load_prompt(name, package or self.package, language)
            for name in names
            for language in (None, *self.languages())
        ]
        return {prompt.name: prompt.sha256 for prompt in prompts}
