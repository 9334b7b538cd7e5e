"""Translators for MT augmentation: any chat model of the LLM layer (role `translator`, so every
call is cached in a run store and a killed run resumes), or anything with the same method."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from dialbench.llm.base import Completion, GenerationParams
from dialbench.llm.runner import Runner
from dialbench.schema import base_language

NAMES = {
    "en": "English",
    "de": "German",
    "fr": "French",
    "es": "Spanish",
    "pt": "Portuguese",
    "it": "Italian",
    "nl": "Dutch",
    "ru": "Russian",
    "zh": "Chinese",
    "ja": "Japanese",
    "ko": "Korean",
    "ar": "Arabic",
}
PROMPT = (
    "Translate this {source} message from a conversation into {target}. Keep its tone. Reply "
    "with the translation only.\n\n{text}"
)
PARAMS = GenerationParams(temperature=0.0, max_tokens=256)


class Translator(Protocol):
    name: str

    def translate(self, texts: Sequence[str], source: str, target: str) -> list[str | None]:
        """One translation per text; None where translation failed."""
        ...


def language_name(tag: str) -> str:
    return NAMES.get(base_language(tag), f"the language {tag}")


class LLMTranslator:
    """A chat model as translator. Failed or empty replies are None, never the source text."""

    def __init__(self, runner: Runner, spec: str) -> None:
        self.runner = runner
        self.model = runner.model(spec, role="translator")
        self.name = spec

    def translate(self, texts: Sequence[str], source: str, target: str) -> list[str | None]:
        prompts = [
            PROMPT.format(source=language_name(source), target=language_name(target), text=text)
            for text in texts
        ]
        calls = [self.model.chat([{"role": "user", "content": p}], PARAMS) for p in prompts]
        replies = self.runner.run_sync(self.runner.gather(calls, f"translate {source}->{target}"))
        return [
            reply.text.strip() or None if isinstance(reply, Completion) else None
            for reply in replies
        ]
