"""`dialbench run --dry-run`: what a pipeline would cost before it runs.

Per stage: model calls, tokens, price where known (`llm/prices.json`) and wall time at the
configured concurrency; for the pipeline, the wall time of its critical path. Stages already
done with the same identity cost nothing. These are estimates from typical lengths: the point is
the order of magnitude (a day or a week, ten dollars or ten thousand), not the exact figure.
And for a stage whose chatbots grow dialogues from shared seeds (simulate, selfchat): the seeds
per language, and the smallest difference in an issue rate between two chatbots they detect
(`figures/power.py`), from a base rate or a pilot run's spread.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

from pydantic import Field

from dialbench.errors import DialbenchError
from dialbench.llm.packaged import PACKAGED_MODELS
from dialbench.llm.preflight import Checked, ModelProblem
from dialbench.llm.prices import PriceTable
from dialbench.llm.specs import BACKENDS, parse_spec
from dialbench.pipeline.config import PipelineConfig
from dialbench.pipeline.execute import done_identities, finished_stages, stage_model_problems
from dialbench.pipeline.graph import build_graph
from dialbench.pipeline.stage import DialogueCounts, ModelCalls, PlanContext
from dialbench.schema import Dialogue, Record, StageRecord, Usage
from dialbench.store import STORE_FILENAME, RunStore

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


BASE_RATE = 0.2  # a common MEDAL issue's rate; --base-rate for another


class PowerBasis(Record):
    """Where the plan takes the spread of one seed's difference in an issue rate from: a pilot
    run's chatbots, else the base rate's bound (`figures/power.py`)."""

    base_rate: float = Field(default=BASE_RATE, gt=0, lt=1)
    pilot: Path | None = None


class SeedPower(Record):
    """Languages of a stage with as many seeds and as wide a spread, and the smallest
    difference in an issue rate between two of its chatbots their seeds detect."""

    languages: list[str]
    seeds: int = Field(description="per language")
    dialogues_per_seed: int = Field(description="per chatbot")
    sd: float = Field(description="of one seed's difference between two chatbots")
    difference: float | None = Field(description="detected 80% of the time at alpha 0.05")


class StagePlan(Record):
    name: str
    stage: str
    up_to_date: bool
    retries: str | None = Field(
        default=None, description="what failed when it last ran: a run retries exactly that"
    )
    models: list[ModelPlan] = Field(default_factory=list)
    wall_s: float = 0.0
    finishes_at_s: float = 0.0
    note: str = ""
    problems: list[ModelProblem] = Field(
        default_factory=list, description="why a model of the stage cannot answer"
    )
    power: list[SeedPower] = Field(default_factory=list)


class PipelinePlan(Record):
    run_dir: Path
    stages: list[StagePlan]
    power_basis: PowerBasis = Field(default_factory=PowerBasis)

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
    if not (run_dir / STORE_FILENAME).exists():
        return Counter()
    with RunStore.open(run_dir, create=False) as store:
        rows = store.group_counts(Dialogue, "source", "language")
    return Counter({(source, language): n for source, language, n in rows})


def pilot_issue_spreads(pilot: Path) -> dict[str, float]:
    """Per language (and "all"), the pilot's sd of one seed's difference in an issue rate
    between two chatbots (pooled over its chatbot pairs and judges), of its widest issue: the
    plan then holds for every issue."""
    from dialbench.figures.observations import observations
    from dialbench.figures.power import pilot_spreads
    from dialbench.figures.run_reads import RunReads

    with RunStore.open(pilot, create=False) as store:
        run = RunReads(store)
        found = observations(run.frame, run)
    rates = found[(found["protocol"] == "issues") & (found["better"] == "lower")]
    widest: dict[str, float] = {}
    for spread in pilot_spreads(rates):
        widest[spread.language] = max(spread.sd, widest.get(spread.language, 0.0))
    if not widest:
        raise DialbenchError(
            f"{pilot}: no issue rates of two chatbots on shared seeds to take a spread from"
        )
    return widest


def seed_power(
    seeds: dict[str, int],
    dialogues_per_seed: int,
    basis: PowerBasis,
    pilot: dict[str, float] | None = None,
) -> list[SeedPower]:
    """The languages grouped by their seeds and spread (the pilot's per language, its "all"
    for a language it lacks; else the base rate's bound), then the languages together."""
    from dialbench.figures.power import detectable_difference, rate_sd
    from dialbench.schema import ALL_LANGUAGES

    def sd(language: str) -> float:
        if pilot is None:
            return rate_sd(basis.base_rate, dialogues_per_seed)
        return pilot.get(language, pilot[ALL_LANGUAGES])

    groups: dict[tuple[int, float], list[str]] = defaultdict(list)
    for language, n in seeds.items():
        groups[(n, sd(language))].append(language)
    rows = [(languages, n, group_sd) for (n, group_sd), languages in groups.items()]
    if len(seeds) > 1:
        rows.append(([ALL_LANGUAGES], sum(seeds.values()), sd(ALL_LANGUAGES)))
    return [
        SeedPower(
            languages=languages,
            seeds=n,
            dialogues_per_seed=dialogues_per_seed,
            sd=group_sd,
            difference=detectable_difference(n, group_sd).difference,
        )
        for languages, n, group_sd in rows
    ]


def _failed_before(recorded: dict[str, StageRecord], identity: str) -> str | None:
    record = recorded.get(identity)
    return None if record is None else record.failed


def plan_pipeline(
    config: PipelineConfig,
    run_dir: Path,
    power_basis: PowerBasis | None = None,
    *,
    accept_failures: bool = False,
) -> PipelinePlan:
    """What `dialbench run` would do: per stage, whether it is up to date (a stage done with
    failures is not, unless `accept_failures`: it runs again for what failed), its model calls,
    cost and time, and the power of its seeds."""
    power_basis = power_basis or PowerBasis()
    pilot = None if power_basis.pilot is None else pilot_issue_spreads(power_basis.pilot)
    nodes = build_graph(list(config.stages), run_dir)
    recorded = finished_stages(run_dir)
    done = done_identities(recorded, accept_failures=accept_failures)
    prices = PriceTable.load()
    context = PlanContext(run_dir=run_dir, dialogues=stored_dialogues(run_dir))
    finishes: dict[str, float] = {}
    checked: Checked = {}
    plans = []
    for node in nodes:
        up_to_date = node.identity in done
        estimate = node.stage.estimate(context)
        if not up_to_date:
            context.dialogues.update(estimate.adds_dialogues)
            for kind in node.stage.writes():
                context.written_first.setdefault(kind, []).append(node.name)
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
                retries=None if up_to_date else _failed_before(recorded, node.identity),
                models=models,
                wall_s=wall,
                finishes_at_s=start + wall,
                note=estimate.note,
                problems=[] if up_to_date else stage_model_problems(node, checked),
                power=seed_power(estimate.seeds, estimate.dialogues_per_seed, power_basis, pilot)
                if estimate.seeds
                else [],
            )
        )
    return PipelinePlan(run_dir=run_dir, stages=plans, power_basis=power_basis)
