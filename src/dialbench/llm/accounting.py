"""Token, call and spend totals per role and model, as the runner counts them."""

from __future__ import annotations

from dialbench.schema import Usage, UsageLine


class Accounting:
    def __init__(self) -> None:
        self._lines: dict[tuple[str, str], UsageLine] = {}
        self.total_cost_usd = 0.0

    def line(self, role: str, model: str) -> UsageLine:
        key = (role, model)
        if key not in self._lines:
            self._lines[key] = UsageLine(role=role, model=model)
        return self._lines[key]

    def add_call(self, role: str, model: str, usage: Usage) -> None:
        line = self.line(role, model)
        line.calls += 1
        line.usage = line.usage + usage
        self.total_cost_usd += usage.cost_usd or 0.0

    def lines(self) -> list[UsageLine]:
        return [line.model_copy(deep=True) for line in self._lines.values()]

    def total(self) -> Usage:
        total = Usage()
        for line in self._lines.values():
            total = total + line.usage
        return total
