"""`replay` as one typed call on a run directory, for the CLI, the pipeline and scripts: the
recorded dialogues (of a shard), every replay not stored yet made (`replaying.py`)."""

from __future__ import annotations

from pathlib import Path

from dialbench.errors import DialbenchError
from dialbench.llm.collection import long_job
from dialbench.llm.preflight import check_models
from dialbench.llm.runner import Runner
from dialbench.replay.config import ReplayConfig
from dialbench.replay.replaying import Replay, ReplayResult, recorded_dialogues
from dialbench.sharding import Shard, owned
from dialbench.store import RunStore


def replay(
    config: ReplayConfig, run_dir: str | Path, *, quiet: bool = False, shard: Shard | None = None
) -> ReplayResult:
    """Replay every recorded dialogue of the config with its candidate, where not yet stored in
    `run_dir` (`shard`: the recorded dialogues it owns)."""
    with long_job(), RunStore.open(run_dir, create=False) as store:
        recorded = recorded_dialogues(store, config)
        if not recorded:
            asked = ", ".join(config.sources) or "any source"
            raise DialbenchError(
                f"{store.path.parent} holds no finished dialogue from {asked} with a reply to "
                "replay (a user turn, then an assistant turn): import or simulate some first"
            )
        recorded = [d for d in recorded if owned(shard, d.id)]
        check_models(config)
        with (
            store.invocation("replay", config.model_dump(mode="json")) as record,
            Runner(run_dir, run_id=record.id, quiet=quiet) as runner,
        ):
            job = Replay(config, store, record, runner)
            return runner.run_sync(job.run(recorded))
