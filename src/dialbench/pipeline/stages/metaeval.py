"""Meta-evaluation as a pipeline stage: the run's judges against its human annotations.

The statistics (pandas, scikit-learn, SciPy) load when the stage runs, not when a pipeline
file is read."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from dialbench.metaeval.config import MetaevalConfig
from dialbench.pipeline.stage import ANNOTATIONS, FILES, JUDGMENTS, Stage, StageResult, relative_to


class MetaevalStage(Stage, MetaevalConfig):
    stage: Literal["metaeval"]

    def reads(self) -> frozenset[str]:
        return frozenset({JUDGMENTS, ANNOTATIONS})

    def writes(self) -> frozenset[str]:
        return frozenset({FILES})

    def input_files(self) -> list[Path]:
        return [*self.against, *self.predictions]

    def resolve_paths(self, folder: Path) -> MetaevalStage:
        return self.model_copy(
            update={
                "against": [relative_to(folder, p) for p in self.against],
                "predictions": [relative_to(folder, p) for p in self.predictions],
                "output": relative_to(folder, self.output),
            }
        )

    def execute(self, run_dir: Path) -> StageResult:
        from dialbench.metaeval.api import metaeval  # pandas, scikit-learn, when it runs

        output = metaeval(self.config(MetaevalConfig), run_dir)
        return StageResult(f"{len(output.written)} file(s) in {output.folder}", output)
