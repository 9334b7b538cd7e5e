"""Prompt templates as data files, each hashed so records can name the exact text they used."""

from __future__ import annotations

from functools import cache
from importlib import resources

from pydantic import BaseModel, ConfigDict

from dialbench.hashing import sha256_text


class Prompt(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    text: str
    sha256: str

    def format(self, **values: str) -> str:
        return self.text.format(**values)


@cache
def load_prompt(name: str, package: str = __name__) -> Prompt:
    """The template `<name>.txt` of a package (default: this one) with the sha256 of its text,
    for provenance. Names are unique across packages, since records key hashes by name."""
    text = (resources.files(package) / f"{name}.txt").read_text(encoding="utf-8")
    return Prompt(name=name, text=text, sha256=sha256_text(text))
