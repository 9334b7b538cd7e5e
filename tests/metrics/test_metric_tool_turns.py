"""Trained metrics and DiQAD read the two sides' utterances only: the packaged metric scores a
dialogue with tool turns at the chatbot's turns, each as it scores the same dialogue without
them, and no tool result is ever a response, a context turn or part of a spliced text."""

from __future__ import annotations

from pathlib import Path

from dialbench.metrics.api import score_metric
from dialbench.metrics.config import MetricScoreConfig
from dialbench.metrics.diqad.splice import splice
from dialbench.metrics.examples import nsp_examples, vsp_examples
from dialbench.schema import Judgment, speaker_turns
from dialbench.store import RunStore
from tests.tool_dialogues import ASSISTANT_TURNS, EN, TOOL_DIALOGUES, ZH, without_tools

TWINS = {d.id: without_tools(d) for d in TOOL_DIALOGUES}


def test_the_packaged_metric_scores_chatbot_turns_as_if_no_tool_had_been_called(
    tmp_path: Path,
) -> None:
    with RunStore.open(tmp_path) as store, store.invocation("import") as run:
        store.add([*TOOL_DIALOGUES, *TWINS.values()], run)
    result = score_metric(MetricScoreConfig(model="sensibleness"), tmp_path)
    assert (result.dialogues, result.judgments) == (4, 8)
    with RunStore.open(tmp_path) as store:
        scores = {
            (j.target.dialogue_id, j.target.turn_index): j.result["sensibleness"]
            for j in store.records(Judgment)
            if j.result is not None
        }
    for d in TOOL_DIALOGUES:
        scored = sorted(index for dialogue, index in scores if dialogue == d.id)
        assert scored == ASSISTANT_TURNS[d.id]
        twin = TWINS[d.id].id
        assert [scores[(d.id, i)] for i in scored] == [scores[(twin, i)] for i in (1, 2)]


def test_no_tool_result_is_a_training_response_or_a_spliced_utterance() -> None:
    utterances = {t.text for d in TOOL_DIALOGUES for t in speaker_turns(d.turns)}
    nsp = nsp_examples(list(TOOL_DIALOGUES), seed=1, max_coverage=1.0)
    assert {e.response for e in nsp if e.target == 1.0} <= utterances
    assert {(e.dialogue_id, e.turn_index) for e in nsp} == {
        (EN.id, 1),
        (EN.id, 3),
        (ZH.id, 1),
        (ZH.id, 4),
    }
    assert all("tool" not in [role for role, _ in e.previous] for e in nsp)
    vsp = vsp_examples(list(TOOL_DIALOGUES), seed=1)
    assert {e.turn_index for e in vsp if e.dialogue_id == ZH.id} == {0, 1, 4}
    for d in TOOL_DIALOGUES:
        assert splice(d) == splice(TWINS[d.id])
    assert splice(ZH).startswith(
        "question: 北京今天天气怎么样？ response: 我查一下。 response: 北京"
    )
