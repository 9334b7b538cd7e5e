"""Token counts in OpenAI's cl100k_base vocabulary (the paper's "CL100K tokenizer"), offline:
`bpe-openai` ships the vocabulary file, so nothing is downloaded."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bpe_openai import Encoding


@cache
def _encoding() -> Encoding:
    import bpe_openai  # imported here: it costs most of a second on every CLI start

    return bpe_openai.get_encoding("cl100k_base")


def cl100k_tokens(text: str) -> int:
    """The number of cl100k_base tokens of `text` (special-token text counts as plain text)."""
    return len(_encoding().encode_ordinary(text))
