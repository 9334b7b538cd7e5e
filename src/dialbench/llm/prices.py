"""Cost of a call from a price table that users can extend.

The table maps a model spec (or a `prefix:*` pattern) to USD per million input and output
tokens. It ships as `prices.json`; `DIALBENCH_PRICES` names a file of the same form whose entries
win. A model with no price has cost `None`, never a guessed zero.
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, RootModel

from dialbench.errors import DialbenchError
from dialbench.schema import Usage


class PriceTableError(DialbenchError):
    """A price file that cannot be read."""


class Price(BaseModel):
    input_per_million: float
    output_per_million: float


class _PriceFile(RootModel[dict[str, tuple[float, float]]]):
    pass


def _read(text: str, origin: str) -> dict[str, Price]:
    try:
        entries = json.loads(text)
        entries.pop("_comment", None)
        table = _PriceFile.model_validate(entries).root
    except (ValueError, AttributeError) as error:
        raise PriceTableError(
            f"{origin}: not a price table ({{spec: [input, output] USD per 1M tokens}}): {error}"
        ) from error
    return {
        spec: Price(input_per_million=i, output_per_million=o) for spec, (i, o) in table.items()
    }


class PriceTable:
    def __init__(self, prices: dict[str, Price]) -> None:
        self.prices = prices

    @classmethod
    def load(cls, extra: Path | None = None) -> PriceTable:
        """The shipped table, overlaid by `extra` or else by the file `DIALBENCH_PRICES` names."""
        shipped = resources.files("dialbench.llm") / "prices.json"
        prices = _read(shipped.read_text(encoding="utf-8"), "prices.json")
        extra = extra or (Path(p) if (p := os.environ.get("DIALBENCH_PRICES")) else None)
        if extra is not None:
            try:
                text = extra.read_text(encoding="utf-8")
            except OSError as error:
                raise PriceTableError(f"{extra}: cannot read the price file ({error})") from error
            prices |= _read(text, str(extra))
        return cls(prices)

    def price(self, spec: str) -> Price | None:
        if spec in self.prices:
            return self.prices[spec]
        return self.prices.get(spec.split(":", 1)[0] + ":*")

    def cost(self, spec: str, usage: Usage) -> float | None:
        price = self.price(spec)
        if price is None:
            return None
        return (
            usage.prompt_tokens * price.input_per_million
            + usage.completion_tokens * price.output_per_million
        ) / 1_000_000
