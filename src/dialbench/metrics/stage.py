"""`metric score` as one typed call, for the CLI and the pipeline: the turns of a run judged by
a trained metric, and optionally the human labels it learned from on its dimension."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from dialbench.metrics.packaged import metric_folder
from dialbench.schema import Annotation, LanguageCode, Record, Role
from dialbench.store import RunStore

TurnsToScore = Literal["all", "last"]


def _chatbot_turns() -> list[Role]:
    return ["assistant"]


class MetricScoreConfig(Record):
    model: Path = Field(
        description="the model directory `dialbench metric train` wrote, or a packaged "
        "metric's name (`sensibleness`) where no directory of that name exists"
    )
    roles: list[Role] = Field(default_factory=_chatbot_turns, min_length=1)
    turns: TurnsToScore = Field(
        default="all",
        description="score every turn of those roles, or only each dialogue's last one (as a "
        "judge's turns=last)",
    )
    languages: list[LanguageCode] = Field(
        default_factory=list, description="only dialogues in these languages (default: all)"
    )
    heldout_only: bool = Field(
        default=False, description="only the dialogues held out from training (honest figures)"
    )
    human_labels: bool = Field(
        default=False,
        description="also store the human labels the metric learned from on its dimension, "
        "for metaeval --protocol metric:NAME",
    )
    workers: int | None = Field(
        default=None,
        ge=1,
        description="encoder processes (default: one per core from 10,000 turns, else one)",
    )


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
    from dialbench.metrics.model import load_model  # numpy heads, the encoder when it runs
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
        with store.run(f"metric score {info.name}", settings) as record:
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
