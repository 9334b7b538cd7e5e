"""Every kind of pipeline stage: a new stage is one module under `stages/` and one line here."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from dialbench.pipeline.stages.arena import ArenaStage
from dialbench.pipeline.stages.curate import CurateStage
from dialbench.pipeline.stages.import_records import ImportStage
from dialbench.pipeline.stages.judge import JudgeStage
from dialbench.pipeline.stages.metaeval import MetaevalStage
from dialbench.pipeline.stages.metric import MetricStage
from dialbench.pipeline.stages.report import ReportStage
from dialbench.pipeline.stages.selfchat import SelfChatStage
from dialbench.pipeline.stages.simulate import SimulateStage

AnyStage = Annotated[
    ImportStage
    | SimulateStage
    | SelfChatStage
    | JudgeStage
    | ArenaStage
    | CurateStage
    | MetricStage
    | MetaevalStage
    | ReportStage,
    Field(discriminator="stage"),
]
