"""Records kept as YAML data files in the package (issue labels, few-shot examples), validated
on load and hashed, so every judgment can name the exact text it was built from."""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path
from typing import TypeVar, cast

import yaml

from dialbench.hashing import sha256_text
from dialbench.schema import Record

R = TypeVar("R", bound=Record)


def load_yaml_record(package: str, name: str, record_type: type[R]) -> R:
    """`<package>/<name>` as a record, read once; the record type has a `sha256` field for the
    file's hash."""
    return cast(R, _load(package, name, record_type))


@cache
def _load(package: str, name: str, record_type: type[Record]) -> Record:
    text = (resources.files(package) / name).read_text(encoding="utf-8")
    return record_type.model_validate({**yaml.safe_load(text), "sha256": sha256_text(text)})


def write_yaml_record(package: str, name: str, record: Record, command: str, *, write: bool) -> str:
    """The text of a figures file a benchmark measures (`command`, named in its first line so
    no one edits it by hand), written over `<package>/<name>` when `write`."""
    body = record.model_dump(mode="json", exclude={"sha256"})
    text = f"# Written by `{command}`: do not edit by hand.\n" + yaml.safe_dump(
        body, allow_unicode=True, sort_keys=False, width=100
    )
    if write:
        Path(str(resources.files(package) / name)).write_text(text, encoding="utf-8")
    return text
