"""Content hashing: one canonical form so ids, config hashes and prompt hashes agree everywhere."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import orjson


def canonical_json(value: Any) -> str:
    """Serialise with sorted keys and no whitespace, so equal content always hashes equally.

    orjson is ten times faster than the standard library here, which matters because every
    record is hashed on import; the standard library only serves values orjson refuses
    (integers beyond 64 bits), and always for the same value, so hashes stay stable.
    """
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode("utf-8")
    except orjson.JSONEncodeError:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def content_hash(value: Any) -> str:
    """sha256 of the canonical JSON of a JSON-compatible value."""
    return sha256_text(canonical_json(value))


def file_sha256(path: Path) -> str:
    """sha256 of a file's bytes, read in blocks (model files are hundreds of MB)."""
    with path.open("rb") as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()
