"""Stored ids, configuration hashes and stage identities are pinned: a rename of a class, a
module or a function (the glossary's, docs/architecture.md "Words") must move none of them, or
every stored run would be judged, simulated and resumed again. A change here that is meant says
so in its commit."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

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
        {"stage": "import", "name": "data", "example": "multilingual_dialogues"},
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

# Printed by `stored_identities` on the tree before the glossary's renames.
PINNED = {
    "stages": "bec2d9a24f8bc56b858cec333c7ddd6db7f7b8bda7aa61f1d93eb9df879596e8",
    "imported": "b9bd7df0dce340ac958d698ce6cbd2e9b5984c8621b885429b6cfcf91d1d0a08",
    "simulated": "10a22dae995fe39d433f2b824c1226da6c310e3421e7bc3975d392912871bae9",
    "judgments": "eafa576cd6a21fc03f48af64f8c6c559b6399814a12d32ff0a39345d1b4ed596",
    "configuration_hashes": "7f71a48707c8d207ab56bd7173a81a9b7acc83c63b7f77baceda0dcd7e91ead1",
    "benchmark": "db2c6f14e42d6d377e9ee1409d3608031da96b5bd45061a177fcbcc9c6e4ab3f",
}


def stored_identities(tmp_path: Path) -> dict[str, str]:
    """One hash per kind of stored identity of a scripted pipeline's run."""
    for model in (USER, VALIDATOR, CHATBOT, HOLISTIC, ISSUES):
        model.config()  # registers the script
    path = tmp_path / "pipeline.yaml"
    path.write_text(yaml.safe_dump(PIPELINE, allow_unicode=True), encoding="utf-8")
    result = run_pipeline(load_pipeline(path), tmp_path / "run")
    assert not result.failed, result
    with RunStore.open(tmp_path / "run", create=False) as store:
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


def test_stored_ids_hashes_and_stage_identities_do_not_move(tmp_path: Path) -> None:
    assert stored_identities(tmp_path) == PINNED
