"""Every kind of pipeline stage, by the `stage:` key a pipeline file gives it: a new stage is one
module under `stages/` and one line here (or a plugin's entry point, group
`dialbench.stages`). A pipeline file validates its stages as the union of the kinds registered
when it is read."""

from __future__ import annotations

from dialbench.pipeline.stage import Stage
from dialbench.registry import Registry

STAGES: Registry[type[Stage]] = Registry(
    "stage kind",
    {
        "import": "dialbench.pipeline.stages.import_records:ImportStage",
        "simulate": "dialbench.pipeline.stages.simulate:SimulateStage",
        "selfchat": "dialbench.pipeline.stages.selfchat:SelfChatStage",
        "replay": "dialbench.pipeline.stages.replay:ReplayStage",
        "judge": "dialbench.pipeline.stages.judge:JudgeStage",
        "arena": "dialbench.pipeline.stages.arena:ArenaStage",
        "curate": "dialbench.pipeline.stages.curate:CurateStage",
        "metric": "dialbench.pipeline.stages.metric:MetricStage",
        "diqad": "dialbench.pipeline.stages.diqad:DiqadStage",
        "calibrate": "dialbench.pipeline.stages.calibrate:CalibrateStage",
        "metaeval": "dialbench.pipeline.stages.metaeval:MetaevalStage",
        "report": "dialbench.pipeline.stages.report:ReportStage",
    },
    group="stages",
)


def stage_kinds() -> tuple[type[Stage], ...]:
    """Every stage kind registered now, in table order."""
    return tuple(kind for _, kind in STAGES.items())
