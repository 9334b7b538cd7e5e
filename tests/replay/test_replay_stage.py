"""The pipeline's `replay` stage: planned from the recorded dialogues, run, then up to date;
the replay protocol judges what it stored."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from dialbench.pipeline.config import load_pipeline
from dialbench.pipeline.execute import run_pipeline
from dialbench.pipeline.plan import plan_pipeline
from dialbench.schema import Dialogue, Judgment
from dialbench.store import RunStore
from tests.scripted_models import ScriptedModel

CANDIDATE = ScriptedModel("replay-stage-candidate", lambda _: "Gern, ich helfe Ihnen.")
JUDGE = ScriptedModel(
    "replay-stage-judge", lambda _: json.dumps({"choice": "Tie", "reason": "both fine"})
)


def test_a_replay_stage_is_planned_run_and_then_up_to_date(tmp_path: Path) -> None:
    stages = [
        {"stage": "import", "example": "openai_chat_log"},
        {"stage": "replay", "candidate": CANDIDATE.config().spec},
        {
            "stage": "judge",
            "protocol": "replay",
            "sources": ["replay"],
            "judges": [JUDGE.config().spec],
        },
    ]
    path = tmp_path / "pipeline.yaml"
    path.write_text(yaml.safe_dump({"stages": stages}), encoding="utf-8")
    config = load_pipeline(path)
    planned = {s.name: s for s in plan_pipeline(config, tmp_path / "run").stages}
    recorded = 5  # the bundled OpenAI log's conversations, one reply each in mode last
    assert planned["replay"].models[0].calls.calls == recorded
    result = run_pipeline(config, tmp_path / "run")
    assert {stage.status for stage in result.stages} <= {"done", "ran"}, result.stages
    with RunStore.open(tmp_path / "run") as store:
        replays = list(store.records(Dialogue, source="replay"))
        judgments = list(store.records(Judgment, protocol="replay"))
    assert len(replays) == 2 * recorded  # each candidate's replay and its recorded side
    assert len(judgments) == 2 * recorded  # both orders
    again = plan_pipeline(load_pipeline(path), tmp_path / "run")
    assert all(stage.up_to_date for stage in again.stages)
