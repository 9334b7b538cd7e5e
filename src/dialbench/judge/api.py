"""`judge` as one typed call on a run directory, for the CLI, the pipeline and scripts: the
dialogues selected, every judge asked (`judging.py`), the judgments stored."""

from __future__ import annotations

from pathlib import Path

from dialbench.judge.config import JudgeConfig
from dialbench.judge.judging import JudgeRunSummary, judge_dialogues, select_dialogues
from dialbench.llm.batch import BatchCollector
from dialbench.llm.collection import long_job
from dialbench.llm.preflight import check_models
from dialbench.llm.runner import Runner
from dialbench.sharding import Shard
from dialbench.store import RunStore


def judge(
    config: JudgeConfig,
    run_dir: str | Path,
    *,
    quiet: bool = False,
    batch: bool = False,
    shard: Shard | None = None,
) -> JudgeRunSummary:
    """Judge the run directory's dialogues: judgments are stored, usage is recorded.

    `batch`: uncached calls are submitted as provider batches (the summary names them).
    `shard`: only its part of the work (the dialogues are selected first, limit included)."""
    check_models(config)
    collector = BatchCollector(run_dir) if batch else None
    protocol = config.build_protocol()
    with long_job(), RunStore.open(run_dir, create=False) as store:
        dialogues = select_dialogues(
            store,
            languages=config.languages,
            sources=config.sources,
            limit=config.limit,
            protocol=protocol,
        )
        with (
            store.run("judge", config.model_dump(mode="json")) as record,
            Runner(run_dir, run_id=record.id, quiet=quiet, batch=collector) as runner,
        ):
            models = [runner.model(judge, role="judge") for judge in config.judges]

            async def job() -> JudgeRunSummary:
                summary = await judge_dialogues(
                    store,
                    runner,
                    protocol,
                    models,
                    dialogues,
                    record,
                    batch_size=config.batch_size,
                    shard=shard,
                    limit=config.limit,
                )
                if collector is not None:
                    summary.batches = [batch.id for batch in await collector.submit()]
                return summary

            return runner.run_sync(job())
