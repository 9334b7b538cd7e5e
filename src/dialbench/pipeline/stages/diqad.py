"""DiQAD's dialogue-quality classifiers as a pipeline stage: trained and tested on the run's own
0/1/2 dialogue labels (human annotations, or a judge's judgments with `protocol`, to distil
that judge), the one asked for saved.

scikit-learn loads when the stage runs, not when a pipeline file is read."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from dialbench.metrics.diqad.config import DiqadTrainConfig
from dialbench.pipeline.stage import (
    ANNOTATIONS,
    DIALOGUES,
    FILES,
    JUDGMENTS,
    Stage,
    StageResult,
    relative_to,
)


class DiqadStage(Stage, DiqadTrainConfig):
    stage: Literal["diqad"]

    def reads(self) -> frozenset[str]:
        return frozenset({DIALOGUES, ANNOTATIONS if self.protocol is None else JUDGMENTS})

    def writes(self) -> frozenset[str]:
        return frozenset() if self.save is None else frozenset({FILES})

    def resolve_paths(self, folder: Path) -> DiqadStage:
        return self.model_copy(update={"save": relative_to(folder, self.save)})

    def execute(self, run_dir: Path) -> StageResult:
        from dialbench.metrics.diqad.train import train_diqad

        result = train_diqad(self.config(DiqadTrainConfig), run_dir)
        uar = ", ".join(f"{r.classifier} {r.heldout['uar']:.2f}" for r in result.reports)
        saved = "" if result.saved is None else f"; saved {result.saved.judge_model} to {self.save}"
        return StageResult(
            f"{result.dialogues} dialogue(s), {result.heldout} held out; "
            f"held-out UAR: {uar}{saved}",
            result,
        )
