"""Few-shot end to end on the bundled DBDC3 sample with the packaged 270M judge: two English
chatbot turns judged, their judgments reviewed (sensibleness corrected), then the next English
dialogue judged with those reviews as examples; the reviewed dialogues are not judged again."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from dialbench.judge.few_shot import EXAMPLES_KEY
from dialbench.schema import Annotation, Dialogue, Judgment
from dialbench.store import RunStore
from tests.conftest import RunCli

# Three calls of the 270M model: a few seconds each, and loading it.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
JUDGE = "local:gemma3-270m"
SENSIBLENESS = ["--option", "dimensions=sensibleness", "--option", "turns=last"]


def judge_english(cli: RunCli, *args: str) -> str:
    command = ["judge", "runs/d", "--protocol", "submetrics", *SENSIBLENESS, "--judge", JUDGE]
    return cli(*command, "--language", "en", "--quiet", *args).stdout


def test_reviewed_turns_are_shown_to_the_judge(cli: RunCli, tmp_path: Path) -> None:
    sample = cli("examples", "dbdc3_sample").stdout.strip()
    cli("import", sample, "--run", "runs/d")
    judge_english(cli, "--limit", "2")
    run = tmp_path / "runs/d"
    with RunStore.open(run) as store, store.run("review") as record:
        reviewed = list(store.records(Judgment, protocol="submetrics"))
        assert len(reviewed) == 2
        reviews = [
            Annotation(
                annotator_id="reviewer",
                target=judgment.target,
                labels={"sensibleness": score},
                review_of=judgment.id,
            )
            for judgment, score in zip(reviewed, (1, 5), strict=True)
        ]
        store.add(reviews, record)
        dialogues = {d.id: d for d in store.records(Dialogue)}
    out = judge_english(cli, "--option", "few_shot=2", "--limit", "1")
    assert "  en: sensibleness 2\n" in out
    with RunStore.open(run) as store:
        few_shot = [
            j
            for j in store.records(Judgment, protocol="submetrics")
            if j.configuration is not None and EXAMPLES_KEY in j.configuration.options
        ]
    [judgment] = few_shot
    assert judgment.parse_status == "ok", judgment.error
    assert judgment.configuration is not None
    lowest_first = [review.id for review in reviews]  # the rule: scores 1, then 5
    assert judgment.configuration.options[EXAMPLES_KEY] == {"en": {"sensibleness": lowest_first}}
    assert judgment.target.dialogue_id not in {r.target.dialogue_id for r in reviews}
    with sqlite3.connect(run / "dialbench.sqlite") as db:
        requests = [json.loads(row[0]) for row in db.execute("SELECT request FROM llm_cache")]
    [prompt] = [r["messages"] for r in requests if len(r["messages"]) == 6]
    for review in reviews:
        assert review.target.turn_index is not None
        turn = dialogues[review.target.dialogue_id].turns[review.target.turn_index]
        assert any(turn.text in m["content"] for m in prompt if m["role"] == "user")
    answers = [json.loads(m["content"]) for m in prompt if m["role"] == "assistant"]
    assert answers == [{"score": 1}, {"score": 5}]
