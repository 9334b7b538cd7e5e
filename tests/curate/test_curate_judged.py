"""Curation from judgments the real `judge` stage made: a scripted issues judge answers each
dialogue of a six-language store through the runner, the cache and the store."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from dialbench.curate.api import curate
from dialbench.curate.config import CurateConfig
from dialbench.judge.api import judge
from dialbench.judge.config import JudgeConfig
from dialbench.llm.base import Completion, Request
from dialbench.schema import Dialogue, Judgment
from dialbench.store import RunStore
from tests.curate.known_store import LANGUAGES, PER_LANGUAGE, dialogue, verdict
from tests.scripted_models import ScriptedModel

pytestmark = pytest.mark.slow
ASKED = re.compile(r"(\w+) question (\d+)")


def answer(request: Request) -> Completion:
    """The known store's verdict for the dialogue named in the transcript."""
    shown = next(m.content for m in request.messages if m.role == "user")
    found = ASKED.search(shown)
    assert found is not None, shown
    language, index = found.group(1), int(found.group(2))
    return Completion(text=json.dumps(verdict(language, index)), finish_reason="stop")


def test_curate_from_judgments_the_judge_stage_made(tmp_path: Path) -> None:
    run = tmp_path / "run"
    with RunStore.open(run) as store, store.invocation("test") as record:
        store.add([dialogue(lang, i) for lang in LANGUAGES for i in range(PER_LANGUAGE)], record)
    scripted = ScriptedModel("curation-judge", answer, structured_output="json_object")
    summary = judge(JudgeConfig(protocol="issues", judges=[scripted.config()]), run, quiet=True)
    assert summary.judges[0].ok == len(LANGUAGES) * PER_LANGUAGE

    result = curate(CurateConfig(benchmark="judged", per_language=20), run)
    benchmark = result.benchmark
    assert benchmark.settings["judge"] == scripted.spec
    with RunStore.open(run) as store:
        [fingerprint] = {
            j.configuration.fingerprint for j in store.records(Judgment) if j.configuration
        }
        dialogues = {d.id: d for d in store.records(Dialogue)}
    assert benchmark.settings["configuration"] == fingerprint
    assert Counter(item.language for item in benchmark.items) == dict.fromkeys(LANGUAGES, 20)
    assert len(benchmark.excluded["mixed-language"]) == 2 * len(LANGUAGES)
    for item in benchmark.items[:6]:
        assert item.reason == "issue-free"
        assert not item.relaxed
        assert dialogues[item.dialogue_id].language == item.language
    again = curate(CurateConfig(benchmark="judged", per_language=20), run)
    assert again.stored == "unchanged"
    assert again.benchmark.items == benchmark.items
