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
PAIR_BLOCK = 16_384


def feature_dim(encoder_dim: int) -> int:
    return 4 * encoder_dim + N_SCALARS


def featurize(examples: Sequence[Example], encoder: Encoder, history: int) -> np.ndarray:
    """Every distinct text is encoded once, in one call (a batch amortises the encoder), and
    the features are computed on whole arrays rather than example by example."""
    texts: dict[str, int] = {}
    responses: list[int] = []
    context = np.full((len(examples), max(history, 1)), -1, dtype=np.int64)  # -1: the zero row
    same_rows: list[int] = []
    same_texts: list[int] = []
    for row, example in enumerate(examples):
        previous = [texts.setdefault(text, len(texts)) for _, text in example.previous]
        responses.append(texts.setdefault(example.response, len(texts)))
        recent = previous[-history:] if history > 0 else []
        context[row, context.shape[1] - len(recent) :] = recent
        for index, (role, _) in zip(previous, example.previous, strict=True):
            if role == example.role:
                same_rows.append(row)
                same_texts.append(index)
    n, dim = len(examples), encoder.dim
    vectors = np.vstack([encoder.encode(list(texts)), np.zeros((1, dim), dtype=np.float32)])
    r, last = vectors[responses], vectors[context[:, -1]]
    mean = sum(vectors[column] for column in context.T) / np.maximum(
        (context >= 0).sum(axis=1, keepdims=True), 1
    )
    repetition = np.full(n, -np.inf, dtype=np.float32)
    rows = np.asarray(same_rows, dtype=np.int64)
    earlier = np.asarray(same_texts, dtype=np.int64)
    for start in range(0, len(rows), PAIR_BLOCK):  # blocks bound the memory of the pairs
        block = slice(start, start + PAIR_BLOCK)
        dots = np.einsum("ij,ij->i", vectors[earlier[block]], r[rows[block]])
        np.maximum.at(repetition, rows[block], dots)
    repetition[np.isinf(repetition)] = 0.0
    out = np.empty((n, feature_dim(dim)), dtype=np.float32)
    out[:, :dim] = r * last
    out[:, dim : 2 * dim] = np.abs(r - last)
    out[:, 2 * dim : 3 * dim] = r
    out[:, 3 * dim : 4 * dim] = last
    out[:, 4 * dim] = np.einsum("ij,ij->i", r, last)
    out[:, 4 * dim + 1] = np.einsum("ij,ij->i", r, mean)
    out[:, 4 * dim + 2] = np.einsum("ij,ij->i", last, mean)
    out[:, 4 * dim + 3] = repetition
    out[:, 4 * dim + 4] = reply_length(examples)
    return out


def reply_length(examples: Sequence[Example]) -> np.ndarray:
    """log(1 + words in each response), words as `words` counts them (a character each in ja):
    the length feature, and alone the baseline a metric must beat."""
    return np.log1p([len(words(e.response, e.language)) for e in examples])
