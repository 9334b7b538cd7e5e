"""Translators for MT augmentation: any model of the LLM layer — a chat model asked to translate,
or a machine-translation model (`hf:FOLDER_OR_HUB_ID`: MBART-50, NLLB, Marian; the `finetune`
extra) — or anything with the same method."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from typing import NamedTuple, Protocol

from dialbench.llm.base import Completion, GenerationParams, Message
from dialbench.llm.runner import Runner
from dialbench.llm.specs import ModelConfig
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


class TranslationRequest(NamedTuple):
    """One text to translate, from `source` into `target`: a translator takes any mix of
    language pairs in one call, so a model streams them all at its own concurrency."""

    text: str
    source: str
    target: str


class Translator(Protocol):
    name: str

    def translate(self, requests: Sequence[TranslationRequest]) -> list[str | None]:
        """One translation per request, in order; None where translation failed."""
        ...


def language_name(tag: str) -> str:
    return NAMES.get(base_language(tag), f"the language {tag}")


def prompt(request: TranslationRequest) -> str:
    return PROMPT.format(
        source=language_name(request.source),
        target=language_name(request.target),
        text=request.text,
    )


class ModelTranslator:
    """Any model of the LLM layer as translator (role `translator`: every call cached, so a
    killed run resumes). A chat model is asked with `PROMPT`; a machine-translation model (an
    `hf:` model, whose backend takes translate requests) gets the text with the languages in its
    own codes (`codes`: language -> code, MBART-50 `de_DE`; a language without one is not named,
    as a Marian model of one pair wants). Every request of a call is one stream through the
    runner, whatever its language pair, up to the model's own `max_concurrency`. Failed or empty
    replies are None, never the source text."""

    def __init__(
        self, runner: Runner, model: str | ModelConfig, codes: Mapping[str, str] | None = None
    ) -> None:
        self.runner = runner
        self.model = runner.model(model, role="translator")
        self.name = self.model.spec
        self.codes = dict(codes or {})
        self.machine = "translate" in type(self.model.api).kinds

    def _code(self, language: str) -> str | None:
        return self.codes.get(language) or self.codes.get(base_language(language))

    def _ask(self, request: TranslationRequest) -> Awaitable[Completion]:
        if self.machine:
            source, target = self._code(request.source), self._code(request.target)
            return self.model.translate(request.text, source, target, PARAMS)
        return self.model.chat([Message(role="user", content=prompt(request))], PARAMS)

    def translate(self, requests: Sequence[TranslationRequest]) -> list[str | None]:
        calls = [self._ask(request) for request in requests]
        replies = self.runner.run_sync(self.runner.gather(calls, "translate"))
        return [
            reply.text.strip() or None if isinstance(reply, Completion) else None
            for reply in replies
        ]
