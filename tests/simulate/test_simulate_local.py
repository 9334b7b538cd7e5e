"""The whole simulation on the packaged local model, through the console script: two languages,
one seed context each (a second doubled the time; the pairing over many contexts is
test_simulate_cli.py's, on scripted models), two chatbots."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from dialbench.llm.packaged import PACKAGED_MODELS, ensure_assembled
from dialbench.schema import Dialogue
from dialbench.simulate.transcript import END_MARKER
from dialbench.store import RunStore

QWEN = "local:qwen2.5-0.5b"


@pytest.mark.slow
def test_two_languages_two_chatbots_on_a_real_model(cli, tmp_path: Path) -> None:
    # The same weights under a second spec: a second chatbot without a second download.
    second = f"local:{ensure_assembled(PACKAGED_MODELS['qwen2.5-0.5b'])}"
    config = {
        "languages": ["en", "zh"],
        "seeds": {"contexts": 1, "seed": 1},
        "user": {
            "models": [QWEN],
            "first_turn": {"temperature": 1.0, "top_p": 0.95, "max_tokens": 32},
            "turns": {"temperature": 0.9, "top_p": 0.95, "max_tokens": 32},
        },
        "validator": {
            "model": QWEN,
            "params": {"temperature": 0.1, "max_tokens": 16},
            "first_turn_attempts": 2,
            "turn_attempts": 1,
        },
        "chatbots": {"models": [QWEN, second], "params": {"temperature": 0.9, "max_tokens": 32}},
        "max_utterances": 4,
    }
    path = tmp_path / "local.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    done = cli("simulate", path, "--run", "run", "--quiet")
    assert "validator acceptance" in done.stdout
    with RunStore.open(tmp_path / "run", create=False) as store:
        dialogues = list(store.records(Dialogue))
    assert len(dialogues) == 4
    assert Counter(d.language for d in dialogues) == {"en": 2, "zh": 2}
    assert {d.participants.assistant for d in dialogues} == {QWEN, second}
    for dialogue in dialogues:
        assert dialogue.end_reason in ("natural_end", "turn_cap", "validation_failed")
        assert len(dialogue.turns) <= 4
        first = dialogue.turns[0]
        assert first.role == "user"
        assert 1 <= len(first.attempts) <= 2
        assert all(
            a.validator_model == QWEN
            for a in first.attempts
            if a.feedback != "the message was empty"
        )
        assert all(END_MARKER not in t.text for t in dialogue.turns)
        assert "filter" in dialogue.metadata
    pairs = Counter(
        (d.seed.model_dump_json() if d.seed else "", d.turns[0].text) for d in dialogues
    )
    assert sorted(pairs.values()) == [2, 2]
