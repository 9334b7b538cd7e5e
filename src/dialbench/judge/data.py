"""The judge's YAML data files (labels, examples), validated and hashed for provenance."""

from __future__ import annotations

from importlib import resources
from typing import TypeVar

import yaml

from dialbench.hashing import sha256_text
from dialbench.schema import Record

R = TypeVar("R", bound=Record)


def load_data_file(name: str, record_type: type[R]) -> R:
    """`judge/<name>` as a record; the record type has a `sha256` field for the file's hash."""
    text = (resources.files("dialbench.judge") / name).read_text(encoding="utf-8")
    return record_type.model_validate({**yaml.safe_load(text), "sha256": sha256_text(text)})
