"""The benchmark as JSON Lines: one line per picked dialogue in selection order, with the whole
dialogue, why it was picked and what was relaxed, ready for an annotation tool or a colleague."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pydantic import Field

from dialbench.curate.selection import Candidate
from dialbench.io.jsonl import write_jsonl
from dialbench.schema import Benchmark, Dialogue, Record


class BenchmarkLine(Record):
    benchmark: str
    position: int = Field(ge=1, description="in the benchmark's selection order")
    language: str
    reason: str
    relaxed: list[str]
    judge: str
    judged_issues: list[str] = Field(description="the issues the curating judge flagged")
    judged_overall: int
    dialogue: Dialogue


def write_benchmark_jsonl(
    benchmark: Benchmark,
    judge: str,
    candidates: Mapping[str, Candidate],
    dialogues: Mapping[str, Dialogue],
    path: Path,
) -> int:
    lines = [
        BenchmarkLine(
            benchmark=benchmark.name,
            position=position,
            language=item.language,
            reason=item.reason,
            relaxed=item.relaxed,
            judge=judge,
            judged_issues=sorted(candidates[item.dialogue_id].issues),
            judged_overall=candidates[item.dialogue_id].overall,
            dialogue=dialogues[item.dialogue_id],
        )
        for position, item in enumerate(benchmark.items, 1)
    ]
    with path.open("w", encoding="utf-8") as stream:
        return write_jsonl(lines, stream)
