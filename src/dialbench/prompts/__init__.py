"""Prompt templates as data files, each hashed so records can name the exact text they used.

A template's translation into another language lies in a folder named by the language beside
it (`ja/judge_sensibleness.txt`), or by the language and its script where one language is
written in two (`zh-Hant/`), named `judge_sensibleness.ja` where records key hashes."""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

from pydantic import BaseModel, ConfigDict

from dialbench.hashing import sha256_text

LANGUAGE_FOLDER = re.compile(r"^[a-z]{2,3}(-[A-Z][a-z]{3})?$")


class Prompt(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    text: str
    sha256: str

    def format(self, **values: str) -> str:
        return self.text.format(**values)


@cache
def load_prompt(name: str, package: str = __name__, language: str | None = None) -> Prompt:
    """The template `<name>.txt` of a package (default: this one), or its translation
    `<language>/<name>.txt`, with the sha256 of its text, for provenance. Names are unique
    across packages, since records key hashes by name: a translation's is `<name>.<language>`."""
    folder = resources.files(package)
    if language is None:
        text = (folder / f"{name}.txt").read_text(encoding="utf-8")
        return Prompt(name=name, text=text, sha256=sha256_text(text))
    text = (folder / language / f"{name}.txt").read_text(encoding="utf-8")
    return Prompt(name=f"{name}.{language}", text=text, sha256=sha256_text(text))


@cache
def translated_languages(package: str) -> tuple[str, ...]:
    """The languages a package's prompt files are translated into: its folders named by a
    language code, or a language and script (`zh-Hant`), sorted."""
    folders = (item.name for item in resources.files(package).iterdir() if item.is_dir())
    return tuple(sorted(name for name in folders if LANGUAGE_FOLDER.match(name)))
