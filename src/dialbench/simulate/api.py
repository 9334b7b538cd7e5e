"""`simulate` as one typed call on a run directory, for the CLI, the pipeline and scripts: the
config's contexts (of a shard), every dialogue not stored yet generated (`simulation.py`)."""

from __future__ import annotations

from pathlib import Path

from dialbench.llm.collection import long_job
from dialbench.llm.preflight import check_models
from dialbench.llm.runner import Runner
from dialbench.sharding import Shard, owned
from dialbench.simulate.config import SimulationConfig
from dialbench.simulate.progress import progress_bar
from dialbench.simulate.simulation import Simulation, SimulationResult, build_contexts
from dialbench.store import RunStore


def simulate(
    config: SimulationConfig,
    run_dir: str | Path,
    *,
    quiet: bool = False,
    shard: Shard | None = None,
) -> SimulationResult:
    """Generate every dialogue of the config not yet stored in `run_dir`; usage is recorded.

    `shard`: only the contexts it owns; a context's dialogues share its first user turn, so
    they are generated together."""
    contexts = [c for c in build_contexts(config) if owned(shard, c.model_dump(mode="json"))]
    check_models(config)
    with (
        long_job(),
        RunStore.open(run_dir) as store,
        store.invocation("simulate", config.model_dump(mode="json")) as run,
        Runner(run_dir, run_id=run.id, quiet=quiet) as runner,
        progress_bar(quiet=quiet) as progress,
    ):
        simulation = Simulation(config, store, run, runner)
        runner.run_sync(simulation.run(contexts, progress))
        return simulation.summary
