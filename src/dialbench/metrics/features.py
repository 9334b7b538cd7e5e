"""Features of (context, response) pairs from frozen sentence embeddings.

Each distinct utterance is embedded once, so scoring a dialogue costs about one encoder call per
turn. With r the response, l the last context turn and c the mean of the last `history` turns
(all L2-normalised): [r*l, |r-l|, r, l] and five scalars: r.l, r.c, l.c, the highest similarity
of r to an earlier turn of the same speaker (repetition), and log(1 + words in r).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dialbench.metrics.encoders import Encoder
from dialbench.metrics.examples import Example
from dialbench.metrics.words import words

N_SCALARS = 5


def feature_dim(encoder_dim: int) -> int:
    return 4 * encoder_dim + N_SCALARS


def featurize(examples: Sequence[Example], encoder: Encoder, history: int) -> np.ndarray:
    texts: dict[str, int] = {}
    for example in examples:
        for _, text in example.previous:
            texts.setdefault(text, len(texts))
        texts.setdefault(example.response, len(texts))
    vectors = encoder.encode(list(texts))
    dim = encoder.dim
    zero = np.zeros(dim, dtype=np.float32)
    out = np.empty((len(examples), feature_dim(dim)), dtype=np.float32)
    for row, example in enumerate(examples):
        r = vectors[texts[example.response]]
        context = example.previous[-history:] if history > 0 else ()
        if context:
            last = vectors[texts[context[-1][1]]]
            mean = vectors[[texts[text] for _, text in context]].mean(axis=0)
        else:
            last = mean = zero
        same = [texts[text] for role, text in example.previous if role == example.role]
        repetition = float((vectors[same] @ r).max()) if same else 0.0
        out[row, :dim] = r * last
        out[row, dim : 2 * dim] = np.abs(r - last)
        out[row, 2 * dim : 3 * dim] = r
        out[row, 3 * dim : 4 * dim] = last
        out[row, 4 * dim :] = (
            float(r @ last),
            float(r @ mean),
            float(last @ mean),
            repetition,
            np.log1p(len(words(example.response, example.language))),
        )
    return out
