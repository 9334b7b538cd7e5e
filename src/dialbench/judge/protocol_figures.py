"""What a protocol says its chatbot figures are, as data beside its `Options`: each figure the
mean over judged items of one field of its results, which direction is better and the ends of
its scale, and how the report shows them when the protocol has no report section of its own.
`figures/observations.py` reads these declarations from the protocol registry for every
protocol; only a figure that is not a per-item mean (GTEval's win rates) needs code there."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import Field

from dialbench.schema import Record

Better = Literal["higher", "lower"]


def is_rate(lowest: float, highest: float) -> bool:
    """Whether a figure on this scale is a rate, the share of items with something: its
    interval (Wilson's) and the gate's margin read it as one."""
    return (lowest, highest) == (0.0, 1.0)


class MeanFigure(Record):
    """A chatbot figure that is the mean over judged items of one field of their results (an
    item's value the mean over its ok samples)."""

    dimension: str
    better: Better = "higher"
    lowest: float = 0.0
    highest: float = 1.0
    of: str | None = Field(
        default=None,
        description="the result's field (flattened: issues.repetitive) it is the mean of; "
        "None: the field named as the dimension",
    )
    complement: bool = Field(
        default=False,
        description="the mean of 1 - the field: the share of items without what the field "
        "says they have (UniEval's judged_human, of ai_involved)",
    )

    @classmethod
    def score(cls, dimension: str, levels: Sequence[int]) -> MeanFigure:
        """A score on these levels, higher better."""
        return cls(dimension=dimension, lowest=min(levels), highest=max(levels))

    @property
    def result_field(self) -> str:
        return self.of or self.dimension

    @property
    def is_rate(self) -> bool:
        return is_rate(self.lowest, self.highest)


class FiguresSection(Record):
    """The report's section of a protocol's figures (`report/figures_section.py`): one table,
    a row per judge, chatbot and language, each figure with its interval."""

    title: str
    note: str
    table: str = Field(description="the table's file name: tables/<table>.csv")
    caption: str = Field(description="the table's title")
    count: str = Field(
        default="items", description="what the table calls the items judged (turns, say)"
    )
