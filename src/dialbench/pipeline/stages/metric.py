"""A trained metric as a pipeline stage: score the run's turns like a judge, after training the
metric first when the stage names a training config.

The metric's code (numpy, jieba, the encoder) loads when a pipeline has this stage, not for
every pipeline file."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Literal

from pydantic import Field

from dialbench.metrics.config import MetricScoreConfig
from dialbench.metrics.packaged import is_packaged, metric_folder
from dialbench.pipeline.stage import (
    ANNOTATIONS,
    DIALOGUES,
    FILES,
    JUDGMENTS,
    Stage,
    StageResult,
    relative_to,
)


class MetricStage(Stage, MetricScoreConfig):
    stage: Literal["metric"]
    pace_fields: ClassVar[frozenset[str]] = frozenset({"workers"})

    train: Path | None = Field(
        default=None,
        description="a `dialbench metric train` config: train into `model` first (its runs may "
        "name this pipeline's run)",
    )

    def reads(self) -> frozenset[str]:
        labels = {ANNOTATIONS} if self.train or self.human_labels else set()
        return frozenset({DIALOGUES, *labels, *({JUDGMENTS} if self._distils() else set())})

    def _distils(self) -> bool:
        """Whether the stage trains on a judge's judgments (objective judge): it then runs after
        the stages that write them, and again when they change."""
        from dialbench.metrics.config import load_config

        return self.train is not None and load_config(self.train).objective == "judge"

    def writes(self) -> frozenset[str]:
        files = {FILES} if self.train else set()
        labels = {ANNOTATIONS} if self.human_labels else set()
        return frozenset({JUDGMENTS, *files, *labels})

    def input_files(self) -> list[Path]:
        """The training config when the stage trains, else the model it scores with (its
        metric.json holds the version and every head's hash)."""
        from dialbench.metrics.saved_metric import METADATA  # numpy, jieba: only for a metric stage

        if self.train is not None:
            return [self.train]
        return [metric_folder(self.model) / METADATA]

    def resolve_paths(self, folder: Path) -> MetricStage:
        """Paths are relative to the pipeline file; `model: sensibleness` names the packaged
        metric unless the pipeline's folder has a directory of that name (or the stage trains
        into it)."""
        packaged = self.train is None and is_packaged(self.model, folder)
        return self.model_copy(
            update={
                "model": self.model if packaged else relative_to(folder, self.model),
                "train": relative_to(folder, self.train),
            }
        )

    def execute(self, run_dir: Path) -> StageResult:
        from dialbench.metrics.api import score_metric

        trained = ""
        if self.train is not None:
            from dialbench.metrics.config import load_config
            from dialbench.metrics.train import train_metric

            info = train_metric(load_config(self.train), self.model)
            figures = ", ".join(
                f"{d.language} {d.pearson:.2f}" for d in info.dev if d.pearson is not None
            )
            truth = " with the teacher" if info.objective == "judge" else ""
            trained = f"trained {self.model} (held-out Pearson{truth}: {figures or '-'}); "
        result = score_metric(self.config(MetricScoreConfig), run_dir)
        return StageResult(
            f"{trained}{result.judge_model}: {result.judgments} turn(s) in {result.dialogues} "
            f"dialogue(s), {result.turns_per_second:.0f} turns/s",
            result,
        )
