"""`hf:FOLDER_OR_HUB_ID`: a Hugging Face seq2seq model run in this process by `transformers`
(extra `finetune`): machine-translation models such as MBART-50, NLLB or Marian, the translator
of MT augmentation. Through the runner like every model, so its translations are cached in the
run store and a killed run resumes.

A translate request's languages are the model's own codes: the source code sets the tokenizer's
source language and the target code is forced as the first generated token; without codes (a
Marian model serves one pair) the text is translated as it is. A completion is the model's
output for the prompt. It serves no chat. Making the backend settles where the model comes from
(`hub_model`); its weights load on the first call, so a job's check of its models before it
starts (`llm/preflight.py`) does not load them a second time.
"""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property
from typing import Any, ClassVar

from dialbench.llm.base import Completion, ModelAPI, ModelError, Request, RequestKind
from dialbench.llm.hub import hub_model
from dialbench.llm.specs import ModelConfig
from dialbench.registry import Requirement
from dialbench.schema import Usage

# One generation at a time: torch spreads each one over the cores itself.
_GENERATION_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="transformers")


class HFAPI(ModelAPI):
    in_process: ClassVar[bool] = True
    kinds: ClassVar[frozenset[RequestKind]] = frozenset({"translate", "complete"})
    requires: ClassVar[Requirement | None] = Requirement("transformers", "finetune", minimum="5.0")

    def __init__(self, config: ModelConfig) -> None:
        name = config.parsed.model
        self.source = hub_model(name, config.spec)
        self.spec = self.endpoint = f"hf:{name}"
        self.structured_mode = "prompt"

    @cached_property
    def tokenizer(self) -> Any:
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(self.source)

    @cached_property
    def model(self) -> Any:
        from transformers import AutoModelForSeq2SeqLM

        model = AutoModelForSeq2SeqLM.from_pretrained(self.source)
        model.eval()
        return model

    async def generate(self, request: Request) -> Completion:
        if request.kind not in self.kinds:
            raise ModelError(f"{self.spec} is a seq2seq model: it takes no {request.kind} requests")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(_GENERATION_THREAD, self._generate, request)

    def _generate(self, request: Request) -> Completion:
        import torch

        options: dict[str, Any] = {
            "max_new_tokens": request.params.max_tokens,
            "num_beams": 1,
            "do_sample": False,
        }
        if request.source_language is not None:
            self.tokenizer.src_lang = request.source_language
        if request.target_language is not None:
            forced = self.tokenizer.convert_tokens_to_ids(request.target_language)
            options["forced_bos_token_id"] = forced
        started = time.perf_counter()
        inputs = self.tokenizer([request.prompt], return_tensors="pt", truncation=True)
        with torch.no_grad():
            generated = self.model.generate(**inputs, **options)
        text = self.tokenizer.batch_decode(generated, skip_special_tokens=True)[0].strip()
        usage = Usage(
            prompt_tokens=int(inputs["input_ids"].shape[1]),
            completion_tokens=int(generated.shape[1]),
        )
        return Completion(
            text=text,
            finish_reason="stop",
            usage=usage,
            latency_s=time.perf_counter() - started,
            model=self.spec,
        )
