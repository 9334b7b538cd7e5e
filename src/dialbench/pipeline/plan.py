"""`dialbench run --dry-run`: what a pipeline would cost before it runs.

Per stage: model calls, tokens, price where known (`llm/prices.json`) and wall time at the
configured concurrency; for the pipeline, the wall time of its critical path. Stages already
done with the same identity cost nothing. These are estimates from typical lengths: the point is
the order of magnitude (a day or a week, ten dollars or ten thousand), not the exact figure.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pydantic import Field

from dialbench.llm.packaged import PACKAGED_MODELS
from dialbench.llm.preflight import Checked, ModelProblem
from dialbench.llm.prices import PriceTable
from dialbench.llm.specs import BACKENDS, parse_spec
from dialbench.pipeline.config import PipelineConfig
from dialbench.pipeline.execute import finished_identities, stage_model_problems
from dialbench.pipeline.graph import build_graph
from dialbench.pipeline.stage import DialogueCounts, ModelCalls, PlanContext
from dialbench.schema import Dialogue, Record, Usage
from dialbench.store import RunStore

# Tokens per second of the packaged 0.5B model on two CPU cores (AMD EPYC; generation 60 tok/s
# in benchmarks/local_tokens.py, a 300-token prompt read at 188 tok/s); other local models are
# taken to be as much slower as their file is larger (the 1.5B: 2.3 times, measured 1.8 to 2.1).
# Then a typical hosted endpoint: a fixed latency per call, then streamed tokens.
LOCAL_PROMPT_TOKENS_PER_S = 190.0
LOCAL_COMPLETION_TOKENS_PER_S = 55.0
REFERENCE_MODEL_BYTES = PACKAGED_MODELS["qwen2.5-0.5b"].size
HTTP_LATENCY_S = 1.0
HTTP_COMPLETION_TOKENS_PER_S = 60.0


class ModelPlan(Record):
    spec: str
    calls: ModelCalls
    cost_usd: float | None = None
    wall_s: float = 0.0


class StagePlan(Record):
    name: str
    stage: str
    up_to_date: bool
    models: list[ModelPlan] = Field(default_factory=list)
    wall_s: float = 0.0
    finishes_at_s: float = 0.0
    note: str = ""
    problems: list[ModelProblem] = Field(
        default_factory=list, description="why a model of the stage cannot answer"
    )


class PipelinePlan(Record):
    run_dir: Path
    stages: list[StagePlan]

    @property
    def wall_s(self) -> float:
        """The critical path: stages that do not wait for each other overlap."""
        return max((stage.finishes_at_s for stage in self.stages), default=0.0)

    @property
    def calls(self) -> int:
        return sum(model.calls.calls for stage in self.stages for model in stage.models)

    @property
    def cost_usd(self) -> float | None:
        costs = [m.cost_usd for stage in self.stages for m in stage.models if m.calls.calls]
        return None if None in costs else sum(c for c in costs if c is not None)

    @property
    def problems(self) -> list[ModelProblem]:
        return [problem for stage in self.stages for problem in stage.problems]


def local_slowness(spec: str) -> float:
    """How many times slower than the packaged 0.5B model a local model is, from its size."""
    name = parse_spec(spec).model
    packaged = PACKAGED_MODELS.get(name)
    size = packaged.size if packaged else (Path(name).stat().st_size if Path(name).is_file() else 0)
    return size / REFERENCE_MODEL_BYTES if size else 1.0


def runs_locally(spec: str) -> bool:
    """From the spec alone: a pool's replicas are in its config, not in the plan."""
    return BACKENDS.load(parse_spec(spec).backend).in_process


def call_seconds(spec: str, calls: ModelCalls) -> float:
    """Wall time of the calls at their concurrency."""
    if not calls.calls:
        return 0.0
    if runs_locally(spec):
        per_call = (
            local_slowness(spec)
            * (
                calls.prompt_tokens / LOCAL_PROMPT_TOKENS_PER_S
                + calls.completion_tokens / LOCAL_COMPLETION_TOKENS_PER_S
            )
            / calls.calls
        )
    else:
        per_call = HTTP_LATENCY_S + calls.completion_tokens / calls.calls / (
            HTTP_COMPLETION_TOKENS_PER_S
        )
    return calls.calls * per_call / calls.concurrency


def stored_dialogues(run_dir: Path) -> DialogueCounts:
    if not (run_dir / "dialbench.sqlite").exists():
        return Counter()
    with RunStore.open(run_dir, create=False) as store:
        rows = store.group_counts(Dialogue, "source", "language")
    return Counter({(source, language): n for source, language, n in rows})


def plan_pipeline(config: PipelineConfig, run_dir: Path) -> PipelinePlan:
    nodes = build_graph(list(config.stages))
    done = finished_identities(run_dir)
    prices = PriceTable.load()
    context = PlanContext(dialogues=stored_dialogues(run_dir))
    finishes: dict[str, float] = {}
    checked: Checked = {}
    plans = []
    for node in nodes:
        up_to_date = node.identity in done
        estimate = node.stage.estimate(context)
        if not up_to_date:
            context.dialogues.update(estimate.adds_dialogues)
        models = (
            []
            if up_to_date
            else [
                ModelPlan(
                    spec=spec,
                    calls=calls,
                    cost_usd=prices.cost(
                        spec,
                        Usage(
                            prompt_tokens=calls.prompt_tokens,
                            completion_tokens=calls.completion_tokens,
                        ),
                    ),
                    wall_s=call_seconds(spec, calls),
                )
                for spec, calls in estimate.calls.items()
            ]
        )
        # Local models take turns on the process's one generation thread; endpoints overlap.
        local = sum(m.wall_s for m in models if runs_locally(m.spec))
        wall = max([local, *(m.wall_s for m in models if not runs_locally(m.spec))])
        start = max((finishes[name] for name in node.after), default=0.0)
        finishes[node.name] = start + wall
        plans.append(
            StagePlan(
                name=node.name,
                stage=node.stage.stage,
                up_to_date=up_to_date,
                models=models,
                wall_s=wall,
                finishes_at_s=start + wall,
                note=estimate.note,
                problems=[] if up_to_date else stage_model_problems(node, checked),
            )
        )
    return PipelinePlan(run_dir=run_dir, stages=plans)
