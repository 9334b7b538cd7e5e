"""Translators for MT augmentation: any chat model of the LLM layer (role `translator`, so every
call is cached in a run store and a killed run resumes), a Hugging Face seq2seq MT model
(MBART-50, NLLB, Marian; spec `hf:FOLDER_OR_HUB_ID`, needs the `finetune` extra), or anything
with the same method."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, Protocol

from dialbench.errors import DialbenchError
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


class LLMTranslator:
    """A chat model as translator. Failed or empty replies are None, never the source text.
    Every request of a call is one stream through the runner: a call starts as a slot frees,
    whatever its language pair, up to the model's own `max_concurrency`."""

    def __init__(self, runner: Runner, model: str | ModelConfig) -> None:
        self.runner = runner
        self.model = runner.model(model, role="translator")
        self.name = self.model.spec

    def translate(self, requests: Sequence[TranslationRequest]) -> list[str | None]:
        calls = [
            self.model.chat([Message(role="user", content=prompt(request))], PARAMS)
            for request in requests
        ]
        replies = self.runner.run_sync(self.runner.gather(calls, "translate"))
        return [
            reply.text.strip() or None if isinstance(reply, Completion) else None
            for reply in replies
        ]


HF_PREFIX = "hf:"


class HFTranslator:
    """A seq2seq MT model. `codes` maps a language to the model's own code (MBART-50 `de_DE`,
    NLLB `deu_Latn`), which sets the source language and forces the target's first token;
    without codes (Marian: one model per language pair) the text is translated as it is."""

    def __init__(
        self, model: str, codes: Mapping[str, str] | None = None, batch_size: int = 16
    ) -> None:
        try:
            from transformers import AutoModelForSeq2SeqLM, AutoTokenizer
        except ImportError:
            raise DialbenchError(
                "an hf: translator needs torch and transformers (pip install 'dialbench[finetune]')"
            ) from None
        self.name = HF_PREFIX + model
        self.tokenizer = AutoTokenizer.from_pretrained(model)
        self.model = AutoModelForSeq2SeqLM.from_pretrained(model)
        self.model.eval()
        self.codes = dict(codes or {})
        self.batch_size = batch_size

    def _code(self, language: str) -> str | None:
        return self.codes.get(language) or self.codes.get(base_language(language))

    def translate(self, requests: Sequence[TranslationRequest]) -> list[str | None]:
        """Each language pair in batches of its own (one source code and forced target each)."""
        pairs: dict[tuple[str, str], list[int]] = {}
        for index, request in enumerate(requests):
            pairs.setdefault((request.source, request.target), []).append(index)
        out: list[str | None] = [None] * len(requests)
        for (source, target), indices in pairs.items():
            texts = [requests[i].text for i in indices]
            for index, text in zip(indices, self._translate(texts, source, target), strict=True):
                out[index] = text
        return out

    def _translate(self, texts: Sequence[str], source: str, target: str) -> list[str | None]:
        import torch

        options: dict[str, Any] = {"max_new_tokens": 256, "num_beams": 1, "do_sample": False}
        source_code, target_code = self._code(source), self._code(target)
        if source_code is not None:
            self.tokenizer.src_lang = source_code
        if target_code is not None:
            options["forced_bos_token_id"] = self.tokenizer.convert_tokens_to_ids(target_code)
        out: list[str | None] = []
        with torch.no_grad():
            for start in range(0, len(texts), self.batch_size):
                batch = self.tokenizer(
                    list(texts[start : start + self.batch_size]),
                    return_tensors="pt",
                    padding=True,
                    truncation=True,
                )
                generated = self.model.generate(**batch, **options)
                decoded = self.tokenizer.batch_decode(generated, skip_special_tokens=True)
                out += [text.strip() or None for text in decoded]
        return out
