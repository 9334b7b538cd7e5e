"""A pipeline file: where the run lives and its stages in order."""

from __future__ import annotations

from collections import Counter
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Union

from pydantic import Field, JsonValue, create_model, field_validator
from pydantic_core import PydanticCustomError

from dialbench.pipeline.registry import STAGES, stage_kinds
from dialbench.pipeline.stage import Stage
from dialbench.registry import RefusedEntry
from dialbench.schema import Record
from dialbench.yaml_config import load_yaml_config


class PipelineConfig(Record):
    run: Path | None = Field(
        default=None, description="the run directory (relative to where dialbench runs)"
    )
    anchors: dict[str, JsonValue] = Field(
        default_factory=dict,
        description="YAML anchors (&name) for entries stages repeat, such as a model pool; "
        "only their aliases (*name) in stages are read",
    )
    stages: list[Stage] = Field(
        min_length=1, description="validated as the stage kinds registered (`stage_kinds`)"
    )

    @field_validator("stages", mode="before")
    @classmethod
    def _kinds_load(cls, stages: object) -> object:
        """A stage of a kind registered but broken (a plugin whose module raises, left out of
        the kinds the stages validate as) is refused saying why, not as a kind unknown."""
        for stage in stages if isinstance(stages, list) else []:
            kind = stage.get("stage") if isinstance(stage, dict) else None
            if isinstance(kind, str) and kind in STAGES:
                try:
                    STAGES.load(kind)
                except RefusedEntry as refused:
                    message = {"message": str(refused)}
                    raise PydanticCustomError("stage_kind", "{message}", message) from None
        return stages

    @field_validator("stages")
    @classmethod
    def _named(cls, stages: list[Stage]) -> list[Stage]:
        """Every stage gets a name: its own, else its kind, numbered among the unnamed stages
        of its kind when there are several."""
        kinds = Counter(stage.stage for stage in stages if not stage.name)
        seen: Counter[str] = Counter()
        named = []
        for stage in stages:
            seen[stage.stage] += not stage.name
            default = (
                stage.stage if kinds[stage.stage] == 1 else f"{stage.stage}-{seen[stage.stage]}"
            )
            named.append(stage if stage.name else stage.model_copy(update={"name": default}))
        names = [stage.name for stage in named]
        repeated = sorted({name for name in names if name and names.count(name) > 1})
        if repeated:
            raise ValueError(f"two stages are named {', '.join(repeated)}")
        return named


@cache
def _with_kinds(kinds: tuple[type[Stage], ...]) -> type[PipelineConfig]:
    """`PipelineConfig` whose stages are these kinds, told apart by their `stage` key."""
    stage: Any = Annotated[Union[kinds], Field(discriminator="stage")]  # noqa: UP007  (a tuple)
    return create_model(
        "PipelineConfig", __base__=PipelineConfig, stages=(list[stage], Field(min_length=1))
    )


def pipeline_config_type() -> type[PipelineConfig]:
    """`PipelineConfig` whose stages validate as each stage kind registered now."""
    return _with_kinds(stage_kinds())


def load_pipeline(path: str | Path) -> PipelineConfig:
    """Read and validate a pipeline file; relative input paths are taken from its folder."""
    path = Path(path)
    config = load_yaml_config(path, pipeline_config_type(), "a pipeline", "run:, stages:")
    resolved = [stage.resolve_paths(path.parent) for stage in config.stages]
    return config.model_copy(update={"stages": resolved})
