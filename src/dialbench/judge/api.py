"""`judge` as one typed call on a run directory, for the CLI, the pipeline and scripts: the
few-shot examples chosen (`few_shot.py`), the dialogues selected, every judge asked
(`judging.py`), the judgments stored."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from dialbench.errors import DialbenchError
from dialbench.judge.config import JudgeConfig
from dialbench.judge.few_shot import FewShotResult, HumanExample, examples_in_run
from dialbench.judge.judging import JudgeResult, judge_dialogues, select_dialogues
from dialbench.judge.protocol import JudgeProtocol
from dialbench.llm.batch import BatchCollector
from dialbench.llm.collection import long_job
from dialbench.llm.preflight import check_models
from dialbench.llm.runner import Runner
from dialbench.schema import Dialogue
from dialbench.sharding import Shard
from dialbench.store import RunStore


def judge(
    config: JudgeConfig,
    run_dir: str | Path,
    *,
    quiet: bool = False,
    batch: bool = False,
    shard: Shard | None = None,
    examples: Sequence[HumanExample] | None = None,
) -> JudgeResult:
    """Judge the run directory's dialogues: judgments are stored, usage is recorded.

    `batch`: uncached calls are submitted as provider batches (the summary names them).
    `shard`: only its part of the work (the dialogues are selected first, limit included).
    `examples`: the pool a `few_shot` protocol chooses from, instead of the labels of
    `config.examples_from` or of the judged run (`examples_in_run`): a benchmark gives each
    fold its own."""
    check_models(config)
    collector = BatchCollector(run_dir) if batch else None
    protocol = config.build_protocol()
    source = _use_examples(protocol, config, run_dir, examples)
    with long_job(), RunStore.open(run_dir, create=False) as store:
        dialogues = select_dialogues(
            store,
            languages=config.languages,
            sources=config.sources,
            limit=config.limit,
            protocol=protocol,
        )
        few_shot = _few_shot_summary(protocol, source, dialogues)
        with (
            store.invocation("judge", config.model_dump(mode="json")) as record,
            Runner(run_dir, run_id=record.id, quiet=quiet, batch=collector) as runner,
        ):
            models = [runner.model(judge, role="judge") for judge in config.judges]

            async def job() -> JudgeResult:
                summary = await judge_dialogues(
                    store,
                    runner,
                    protocol,
                    models,
                    dialogues,
                    record,
                    store_every=config.store_every,
                    shard=shard,
                    limit=config.limit,
                )
                if collector is not None:
                    summary.batches = [batch.id for batch in await collector.submit()]
                summary.few_shot = few_shot
                return summary

            return runner.run_sync(job())


def _use_examples(
    protocol: JudgeProtocol,
    config: JudgeConfig,
    run_dir: str | Path,
    examples: Sequence[HumanExample] | None,
) -> str | None:
    """Choose the protocol's few-shot examples, if it asks for any; where they came from."""
    wanted = protocol.examples_wanted()
    if not wanted:
        if config.examples_from is not None or examples is not None:
            raise DialbenchError(
                f"examples are shown only under a protocol option few_shot=N ({protocol.name})"
            )
        return None
    source = "the given examples"
    if examples is None:
        source = str(config.examples_from or run_dir)
        examples = examples_in_run(source)
    if not protocol.use_examples(examples).shots:
        raise DialbenchError(
            f"few_shot: {source} holds no complete human labels of "
            f"{', '.join(wanted)} on {protocol.judged_items} to show as examples; review "
            "judgments in the web app or import labels of that name"
        )
    return source


def _few_shot_summary(
    protocol: JudgeProtocol, source: str | None, dialogues: Sequence[Dialogue]
) -> FewShotResult | None:
    if source is None or protocol.examples is None:
        return None
    return FewShotResult(
        source=source,
        wanted=protocol.examples.wanted,
        chosen=protocol.examples.ids(),
        languages=sorted({dialogue.language for dialogue in dialogues}),
        held_out=sorted(protocol.examples.dialogue_ids()),
    )
