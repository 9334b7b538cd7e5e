"""What a curation is asked for: a light record, so a pipeline file is checked without loading
pandas and the judges."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, field_validator

from dialbench.schema import Benchmark, LanguageCode, Record


class CurateConfig(Record):
    """The benchmark's name, whose verdicts, how many per language."""

    benchmark: str = Field(description="the benchmark's name")
    judge: str | None = Field(
        default=None, description="`SPEC` or `SPEC [c-…]`; default: the only issues judge"
    )
    per_language: int = Field(default=100, ge=1)
    seed: int = 0
    languages: list[LanguageCode] = Field(
        default_factory=list, description="only these languages (default: every one judged)"
    )
    keywords: Path | None = Field(
        default=None, description="mixed-language keyword file (default: the packaged one)"
    )

    @field_validator("benchmark")
    @classmethod
    def _benchmark_name(cls, name: str) -> str:
        return Benchmark(name=name).name
