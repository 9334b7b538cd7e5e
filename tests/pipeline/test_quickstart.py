"""The quickstart pipeline (`make demo`) end to end on the packaged models, at a tiny size: every
stage runs for real, the judge is measured against the DBDC3 humans, and a second run is a no-op."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from dialbench.metaeval.api import MetaevalResult
from dialbench.metaeval.references import HUMAN_CEILING
from dialbench.pipeline.config import load_pipeline
from dialbench.pipeline.execute import run_pipeline
from dialbench.pipeline.stage import StageResult
from dialbench.schema import Dialogue, Judgment
from dialbench.store import RunStore

QUICKSTART = Path(__file__).resolve().parents[2] / "examples" / "quickstart.yaml"
SMALLEST_CHAT_MODEL = "local:qwen2.5-0.5b"  # gemma3-270m is a base model: no judge, no user


def tiny(stages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The quickstart's stages at the smallest size that still passes through each of them: one
    language (Chinese, the one whose lengths are characters), one seed context and one ChatSEED,
    the 1.5B model replaced by the 0.5B. Its full size is `make demo`'s."""
    by_name = {stage.get("name", stage["stage"]): stage for stage in stages}
    simulate = by_name["simulate"]
    simulate["languages"] = ["zh"]
    simulate["seeds"]["contexts"] = 1
    simulate["max_utterances"] = 2
    simulate["user"]["models"] = [SMALLEST_CHAT_MODEL]
    simulate["validator"]["model"] = SMALLEST_CHAT_MODEL
    simulate["validator"].update(first_turn_attempts=2, threshold=0.3)
    by_name["selfchat"].update(limit=1, n=3)
    for judge in ("issues", "holistic", "arena"):
        by_name[judge]["settings"] = {"max_tokens": 256}
    by_name["dbdc3-judge"].update(judges=[SMALLEST_CHAT_MODEL], limit=1, options={"turns": "last"})
    return stages


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_the_quickstart_runs_every_stage_for_real(tmp_path: Path) -> None:
    data = yaml.safe_load(QUICKSTART.read_text(encoding="utf-8"))
    data["stages"] = tiny(data["stages"])
    path = tmp_path / "quickstart.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    config = load_pipeline(path)
    outputs: dict[str, StageResult | None] = {}
    report = run_pipeline(
        config, tmp_path / "run", listener=lambda r, out: outputs.__setitem__(r.name, out)
    )
    not_ran = {stage.name: stage.summary for stage in report.stages if stage.status != "ran"}
    assert not not_ran

    with RunStore.open(tmp_path / "run") as store:
        simulated = list(store.records(Dialogue, source="medal"))
        selfchats = list(store.records(Dialogue, source="selfchat"))
        judgments = list(store.records(Judgment))
    assert len(simulated) == 2  # zh x two chatbots
    assert len(selfchats) == 2  # one seed x two chatbots
    protocols = {j.protocol for j in judgments}
    assert protocols == {"issues", "holistic", "arena", "submetrics"}
    assert outputs["curate"] is not None
    metaeval = outputs["metaeval"]
    assert metaeval is not None
    assert isinstance(metaeval.result, MetaevalResult)
    rows = metaeval.result.report.correlation
    judge_rows = [r for r in rows if r.rater.startswith(SMALLEST_CHAT_MODEL)]
    assert {r.dimension for r in judge_rows} == {"breakdown"}
    detected = {(r.dimension, r.rater) for r in metaeval.result.report.detection}
    assert {("breakdown=X", SMALLEST_CHAT_MODEL), ("breakdown=X", HUMAN_CEILING)} <= detected
    assert HUMAN_CEILING in {r.rater for r in rows}, "the correlation ceiling of the 30 humans"
    for table in (metaeval.result.report.detection, rows):
        judged = {(r.language, r.n_items, r.n_dialogues) for r in table if r.rater != HUMAN_CEILING}
        ceiling = {
            (r.language, r.n_items, r.n_dialogues) for r in table if r.rater == HUMAN_CEILING
        }
        assert judged == ceiling, "the ceiling on the judge's own turns"
    assert (tmp_path / "run" / "report" / "index.html").is_file()

    again = run_pipeline(config, tmp_path / "run")
    assert {stage.status for stage in again.stages} == {"up to date"}
