"""A model's or bot's answer made fit to store, where it enters dialbench (the runner, a batch).

Two things a backend can hand back that no store should take as they came: characters UTF-8
cannot encode (lone surrogates: what a JSON body's `\\ud800` decodes to, or a Python bot
returns), which SQLite refuses, so one odd reply would fail every write batched with it; and a
reply of megabytes, stored once in its dialogue and again in the cache. The first become
U+FFFD, the second is cut to the model's `max_reply_bytes`; the completion says which happened
(`replaced_unencodable`, `truncated_from_bytes`), and so does the turn made from it.

The cap counts UTF-8 bytes, not characters, because what it bounds is the size of the store and
its exports, which are UTF-8: a cap in characters would let a Chinese reply take thrice the
room of an English one.
"""

from __future__ import annotations

from typing import Any

import orjson

from dialbench.hashing import canonical_json
from dialbench.llm.base import Completion

MAX_REPLY_BYTES = 262_144


def encodable(text: str) -> str:
    """`text` with each lone surrogate as U+FFFD, and a surrogate pair written as two
    characters as the one character it stands for; unchanged (the same object) where UTF-8
    can encode it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def _encodable_json(value: Any) -> Any:
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, list):
        return [_encodable_json(item) for item in value]
    if isinstance(value, dict):
        return {encodable(key): _encodable_json(item) for key, item in value.items()}
    return value


def _encodable_dump(dumped: dict[str, Any]) -> dict[str, Any]:
    """`dumped` with every string UTF-8 can encode; orjson checks the whole dump at C speed,
    so only a dump that it refuses is walked (one with a lone surrogate, or an integer beyond
    64 bits, which needs no repair)."""
    try:
        orjson.dumps(dumped)
    except orjson.JSONEncodeError:
        repaired: dict[str, Any] = _encodable_json(dumped)
        return repaired
    return dumped


def storable_completion(completion: Completion, max_reply_bytes: int) -> Completion:
    """`completion` with every string UTF-8 can encode, its text at most `max_reply_bytes` of
    UTF-8 (cut at a character's boundary), and its `raw` response dropped when the text was cut
    or `raw` is larger than the cap (it holds the whole reply again); the same object when
    nothing needed doing."""
    dumped = completion.model_dump()
    repaired = _encodable_dump(dumped)
    update = {key: value for key, value in repaired.items() if value != dumped[key]}
    if update:
        update["replaced_unencodable"] = True
    encoded = repaired["text"].encode("utf-8")
    cut = len(encoded) > max_reply_bytes
    if cut:
        update["text"] = encoded[:max_reply_bytes].decode("utf-8", "ignore")
        update["truncated_from_bytes"] = completion.truncated_from_bytes or len(encoded)
    raw = repaired["raw"]
    if raw is not None and (cut or len(canonical_json(raw).encode("utf-8")) > max_reply_bytes):
        update["raw"] = None
    if not update:
        return completion
    return Completion.model_validate(dumped | update)


def reply_metadata(completion: Completion) -> dict[str, Any]:
    """What a turn made from the completion records of how its text was made storable."""
    flags: dict[str, Any] = {}
    if completion.replaced_unencodable:
        flags["replaced_unencodable"] = True
    if completion.truncated_from_bytes is not None:
        flags["truncated_from_bytes"] = completion.truncated_from_bytes
    return flags
