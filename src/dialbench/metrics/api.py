"""`metric score` as one typed call on a run directory, for the CLI, the pipeline and scripts: the
turns of a run judged by a trained metric, and optionally the human labels it learned from on its
dimension."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from dialbench.metrics.config import MetricScoreConfig
from dialbench.metrics.packaged import metric_folder
from dialbench.schema import Annotation, Record
from dialbench.store import RunStore


class MetricScoreResult(Record):
    judge_model: str
    dimension: str
    dialogues: int
    judgments: int
    turns_per_second: float
    no_head: dict[str, int] = Field(
        default_factory=dict, description="turns per language no head serves"
    )
    human_labels: int = 0


def score_metric(config: MetricScoreConfig, run_dir: str | Path) -> MetricScoreResult:
    """Write one Judgment per turn of the chosen roles (protocol metric:NAME)."""
    from dialbench.metrics.saved_metric import load_model  # numpy heads, the encoder when it runs
    from dialbench.metrics.score import human_scores, score_run

    loaded = load_model(metric_folder(config.model))
    info = loaded.info
    derived: list[Annotation] = []
    with RunStore.open(run_dir, create=False) as store:
        settings = {
            "model": str(config.model),
            "version": info.version,
            "roles": config.roles,
            "turns": config.turns,
        }
        with store.invocation(f"metric score {info.name}", settings) as record:
            summary = score_run(
                loaded,
                store,
                record,
                roles=config.roles,
                last_only=config.turns == "last",
                heldout_only=config.heldout_only,
                languages=config.languages,
                workers=config.workers,
            )
            if config.human_labels:
                derived = human_scores(loaded, store.records(Annotation))
                store.add(derived, record, on_conflict="replace")
    return MetricScoreResult(
        judge_model=info.judge_model,
        dimension=info.dimension,
        dialogues=summary.dialogues,
        judgments=summary.judgments,
        turns_per_second=summary.turns_per_second,
        no_head=dict(summary.no_head),
        human_labels=len(derived),
    )
