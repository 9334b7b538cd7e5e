"""Stored ids, configuration hashes and stage identities are pinned: a rename of a class, a
module or a function (the glossary's, docs/architecture.md "Words") must move none of them, or
every stored run would be judged, simulated and resumed again. A change here that is meant says
so in its commit."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from dialbench import examples
from dialbench.hashing import content_hash
from dialbench.pipeline.config import load_pipeline
from dialbench.pipeline.execute import run_pipeline
from dialbench.schema import Benchmark, Dialogue, Judgment, StageRecord
from dialbench.store import RunStore
from tests.judge.scripted import issues_answer
from tests.scripted_models import ScriptedModel

USER = ScriptedModel("pinned-user", lambda _r: "My dinner burned and my friends arrive soon.")
VALIDATOR = ScriptedModel("pinned-validator", lambda _r: "Yes.")
CHATBOT = ScriptedModel("pinned-chatbot", lambda _r: "Order pizza and laugh about it together.")
HOLISTIC = ScriptedModel("pinned-holistic", lambda _r: json.dumps({"reason": "ok", "quality": 2}))
ISSUES = ScriptedModel("pinned-issues", lambda _r: issues_answer(overall=4, repetitive=True))

PIPELINE: dict[str, object] = {
    "stages": [
        {"stage": "import", "name": "data", "file": "dialogues.jsonl"},
        {
            "stage": "simulate",
            "languages": ["en", "zh"],
            "seeds": {"contexts": 1},
            "user": {"models": [USER.spec], "form": "chat"},
            "validator": {"model": VALIDATOR.spec, "form": "chat"},
            "chatbots": {"models": [CHATBOT.spec]},
            "max_utterances": 4,
            "filter": {"rules": False},
        },
        {"stage": "judge", "name": "holistic", "protocol": "holistic", "judges": [HOLISTIC.spec]},
        {"stage": "judge", "name": "issues", "protocol": "issues", "judges": [ISSUES.spec]},
        {"stage": "curate", "benchmark": "pilot", "per_language": 1},
    ]
}

# Printed by `stored_identities` on ef42fa9, the tree before issue #49's renames and moves, and
# the same on every commit since (checked in two checkouts at different paths).
PINNED = {
    "stages": "389acd7cbf770c8aefb6f4af1875504b36a4e57db893ef2b3232c1cd7d512f18",
    "imported": "b9bd7df0dce340ac958d698ce6cbd2e9b5984c8621b885429b6cfcf91d1d0a08",
    "simulated": "10a22dae995fe39d433f2b824c1226da6c310e3421e7bc3975d392912871bae9",
    "judgments": "eafa576cd6a21fc03f48af64f8c6c559b6399814a12d32ff0a39345d1b4ed596",
    "configuration_hashes": "c9426e1128cc906295b23197e4f917ad4c0ab6000ca34e060c441bb965ba97ca",
    "benchmark": "db2c6f14e42d6d377e9ee1409d3608031da96b5bd45061a177fcbcc9c6e4ab3f",
}


def stored_identities(folder: Path) -> dict[str, str]:
    """One hash per kind of stored identity of a scripted pipeline's run, made in `folder`, the
    working directory. A stage's identity holds its input files' paths as the pipeline names
    them, so the pipeline, its input (a copy of the bundled multilingual dialogues) and the run
    are named relative to `folder`: the pins hold wherever the checkout and the scratch folder
    lie."""
    for model in (USER, VALIDATOR, CHATBOT, HOLISTIC, ISSUES):
        model.config()  # registers the script
    shutil.copyfile(examples.bundled()["multilingual_dialogues"], folder / "dialogues.jsonl")
    (folder / "pipeline.yaml").write_text(
        yaml.safe_dump(PIPELINE, allow_unicode=True), encoding="utf-8"
    )
    result = run_pipeline(load_pipeline(Path("pipeline.yaml")), Path("run"))
    assert not result.failed, result
    with RunStore.open(Path("run"), create=False) as store:
        stages = sorted((r.name, r.id) for r in store.records(StageRecord))
        dialogues = list(store.records(Dialogue))
        judgments = list(store.records(Judgment))
        benchmarks = [(b.id, b.model_dump(mode="json")["items"]) for b in store.records(Benchmark)]
    return {
        "stages": content_hash(stages),
        "imported": content_hash(sorted(d.id for d in dialogues if d.source != "medal")),
        "simulated": content_hash(sorted(d.id for d in dialogues if d.source == "medal")),
        "judgments": content_hash(sorted(j.id for j in judgments)),
        "configuration_hashes": content_hash(
            sorted((r.id, _hashes(r)) for r in [*dialogues, *judgments])
        ),
        "benchmark": content_hash(benchmarks),
    }


def _hashes(record: Dialogue | Judgment) -> list[object]:
    """What a record's provenance and configuration hash (the run id is new each run)."""
    provenance = record.provenance
    configuration = getattr(record, "configuration", None)
    return [
        configuration.fingerprint if configuration else None,
        provenance.config_hash if provenance else None,
        sorted(provenance.prompt_hashes.items()) if provenance else None,
    ]


def test_stored_ids_hashes_and_stage_identities_do_not_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert stored_identities(tmp_path) == PINNED
