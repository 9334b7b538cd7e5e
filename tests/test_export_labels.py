"""`annotate export` writes the labels of a run whatever judged it: the long format of
annotations never looks at judgments, so several protocols in the run do not stop it."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from dialbench.schema import Judgment, Target
from dialbench.store import RunStore
from tests.conftest import RunCli
from tests.metrics.helpers import annotated_run


def test_labels_export_from_a_run_judged_under_two_protocols(cli: RunCli, tmp_path: Path) -> None:
    run = annotated_run(tmp_path / "run")
    with RunStore.open(run) as store, store.invocation("test") as record:
        [dialogue_id, *_] = store.dialogue_placements()
        store.add(
            [
                Judgment(
                    protocol=protocol,
                    judge_model="scripted:j",
                    target=Target(dialogue_id=dialogue_id),
                    result={"quality": 1},
                    parse_status="ok",
                )
                for protocol in ("holistic", "gteval")
            ],
            record,
        )
    cli("annotate", "export", tmp_path / "labels.long.csv", "--run", run)
    with (tmp_path / "labels.long.csv").open(encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    assert len(rows) == 2 * 20 * 2 * 3  # languages x dialogues x turns x raters
    assert {row["kind"] for row in rows} == {"human"}
    judgments = cli(
        "export", run, "-o", tmp_path / "j.long.csv", "--records", "judgments", ok=False
    )
    assert "choose one with --protocol" in judgments.stderr


def test_metaeval_sets_protocols_side_by_side_when_asked(cli: RunCli, tmp_path: Path) -> None:
    """A judge and the metric distilled from it, or one model under two protocols, are compared
    with the humans in one table when each protocol is named; one model judging both is then
    two raters, named by protocol."""
    run = annotated_run(tmp_path / "run")
    with RunStore.open(run) as store, store.invocation("test") as record:
        store.add(
            [
                Judgment(
                    protocol=protocol,
                    judge_model="scripted:j",
                    target=Target(dialogue_id=dialogue_id, turn_index=turn),
                    result={"sensibleness": 1 + (dialogue_id + protocol + str(turn)).count("a")},
                    parse_status="ok",
                )
                for protocol in ("submetrics", "metric:distilled")
                for dialogue_id in store.dialogue_placements()
                for turn in (1, 3)
            ],
            record,
        )
    refused = cli("metaeval", run, ok=False)
    assert "repeat it to compare several" in refused.stderr
    cli(
        "metaeval",
        run,
        "--protocol",
        "submetrics",
        "--protocol",
        "metric:distilled",
        "--pair",
        "breakdown=sensibleness",
        "--scale",
        "breakdown=ordinal:X,T,O",
        "--bootstrap",
        "100",
    )
    report = json.loads((run / "metaeval" / "report.json").read_text())
    raters = {row["rater"] for row in report["correlation"] if row["language"] == "all"}
    assert {"scripted:j (submetrics)", "scripted:j (metric:distilled)"} <= raters
