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
def load_prompt(name: str) -> Prompt:
    """The template `prompts/<name>.txt` with the sha256 of its text, for provenance."""
    text = (resources.files("dialbench.prompts") / f"{name}.txt").read_text(encoding="utf-8")
    return Prompt(name=name, text=text, sha256=sha256_text(text))
