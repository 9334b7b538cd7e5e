"""Deterministic shards of a stage's work, so several processes or machines share it.

Work is assigned by a stable hash of a key that names a unit of work (a dialogue id, or what a
dialogue's id is derived from), so every process agrees on who does what without talking, and a
re-run with the same shard count gives every shard the same work again (and its cache).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from dialbench.hashing import content_hash
from dialbench.schema import Record


class Shard(Record):
    """Part `index` of `count`."""

    index: int = Field(ge=0)
    count: int = Field(ge=1)

    @model_validator(mode="after")
    def _in_range(self) -> Shard:
        if self.index >= self.count:
            raise ValueError(f"shard {self.index} of {self.count} does not exist")
        return self

    def owns(self, key: Any) -> bool:
        """Whether the unit of work named by `key` (any JSON value) falls in this shard."""
        return int(content_hash(key)[:15], 16) % self.count == self.index

    def __str__(self) -> str:
        return f"{self.index + 1}-of-{self.count}"


def owned(shard: Shard | None, key: Any) -> bool:
    """Whether this process does the unit of work: every unit when there is no shard."""
    return shard is None or shard.owns(key)
