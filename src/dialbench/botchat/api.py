"""`selfchat` as one typed call on a run directory, for the CLI, the pipeline and scripts: the
seed dialogues (of a shard), every self-chat not stored yet generated (`selfchat.py`)."""

from __future__ import annotations

from pathlib import Path

from dialbench.botchat.config import SelfChatConfig
from dialbench.botchat.selfchat import SelfChat, SelfChatResult, seed_dialogues
from dialbench.llm.collection import long_job
from dialbench.llm.preflight import check_models
from dialbench.llm.runner import Runner
from dialbench.sharding import Shard, owned
from dialbench.store import RunStore


def selfchat(
    config: SelfChatConfig, run_dir: str | Path, *, quiet: bool = False, shard: Shard | None = None
) -> SelfChatResult:
    """Generate every self-chat of the config not yet stored in `run_dir` (`shard`: of the
    seeds it owns; the limit counts every seed, so the shards share the same ones)."""
    with long_job(), RunStore.open(run_dir, create=False) as store:
        seeds = [seed for seed in seed_dialogues(store, config) if owned(shard, seed.id)]
        check_models(config)
        with (
            store.invocation("selfchat", config.model_dump(mode="json")) as record,
            Runner(run_dir, run_id=record.id, quiet=quiet) as runner,
        ):
            job = SelfChat(config, store, record, runner)
            return runner.run_sync(job.run(seeds))
