"""The HTML and Markdown report as the last stage of a pipeline."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from dialbench.pipeline.stage import (
    ANNOTATIONS,
    BENCHMARKS,
    DIALOGUES,
    FILES,
    JUDGMENTS,
    Stage,
    StageResult,
    relative_to,
)
from dialbench.report.config import ReportConfig


class ReportStage(Stage, ReportConfig):
    stage: Literal["report"]

    def reads(self) -> frozenset[str]:
        return frozenset({DIALOGUES, JUDGMENTS, ANNOTATIONS, BENCHMARKS})

    def writes(self) -> frozenset[str]:
        return frozenset({FILES})

    def resolve_paths(self, folder: Path) -> ReportStage:
        return self.model_copy(update={"output": relative_to(folder, self.output)})

    def execute(self, run_dir: Path) -> StageResult:
        from dialbench.report.writer import report  # pandas, matplotlib, when it runs

        output = report(self.config(ReportConfig), run_dir)
        return StageResult(f"{len(output.sections)} section(s): {output.html}", output)
