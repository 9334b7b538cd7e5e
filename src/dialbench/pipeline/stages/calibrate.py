"""Calibration as a pipeline stage: fit a calibration on the run's human labels, or apply a
saved one (`apply:`), and store the calibrated judgments beside the judge's own.

The statistics (pandas, scikit-learn) load when the stage runs, not when a pipeline file is
read."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from dialbench.calibrate.config import CalibrateConfig
from dialbench.pipeline.stage import ANNOTATIONS, FILES, JUDGMENTS, Stage, StageResult, relative_to


class CalibrateStage(Stage, CalibrateConfig):
    stage: Literal["calibrate"]

    def reads(self) -> frozenset[str]:
        return frozenset({JUDGMENTS, *([ANNOTATIONS] if self.apply is None else [])})

    def writes(self) -> frozenset[str]:
        return frozenset({JUDGMENTS, *([FILES] if self.apply is None else [])})

    def input_files(self) -> list[Path]:
        return [] if self.apply is None else [self.apply]

    def resolve_paths(self, folder: Path) -> CalibrateStage:
        return self.model_copy(
            update={
                "apply": relative_to(folder, self.apply),
                "output": relative_to(folder, self.output),
            }
        )

    def execute(self, run_dir: Path) -> StageResult:
        from dialbench.calibrate.api import calibrate  # pandas, scikit-learn, when it runs

        output = calibrate(self.config(CalibrateConfig), run_dir)
        how = "applied from" if output.applied else "written to"
        return StageResult(
            f"calibration {output.calibration.digest[:12]} {how} {output.file}: "
            f"{output.stored.added} calibrated judgment(s) added, {len(output.notes)} note(s)",
            output,
        )
