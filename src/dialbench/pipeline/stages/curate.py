"""MEDAL curation as a pipeline stage: a balanced benchmark from the issues judge's verdicts."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from dialbench.curate.config import CurateConfig
from dialbench.pipeline.stage import (
    BENCHMARKS,
    DIALOGUES,
    FILES,
    JUDGMENTS,
    Stage,
    StageResult,
    relative_to,
)


class CurateStage(Stage, CurateConfig):
    stage: Literal["curate"]

    def reads(self) -> frozenset[str]:
        return frozenset({DIALOGUES, JUDGMENTS})

    def writes(self) -> frozenset[str]:
        return frozenset({BENCHMARKS, FILES})

    def input_files(self) -> list[Path]:
        return [] if self.keywords is None else [self.keywords]

    def resolve_paths(self, folder: Path) -> CurateStage:
        return self.model_copy(update={"keywords": relative_to(folder, self.keywords)})

    def execute(self, run_dir: Path) -> StageResult:
        from dialbench.curate.api import curate  # pandas and the judges, when it runs

        result = curate(self.config(CurateConfig), run_dir)
        picked = ", ".join(f"{o.language} {o.picked}" for o in result.languages)
        return StageResult(
            f"benchmark {result.benchmark.name} ({result.stored}): {picked}; {result.folder}",
            result,
        )
