"""Each chatbot figure's observations: placed on the seed its dialogue grew from, read from each
protocol's judgments, human dialogues left out."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from dialbench.figures.observations import observations
from dialbench.figures.run_reads import RunReads
from dialbench.schema import (
    Dialogue,
    Judgment,
    Participants,
    SeedContext,
    Target,
    Turn,
)
from dialbench.store import RunStore

SEED = SeedContext(language="de", scene="ein Café", persona="Studentin")


def medal(chatbot: str, seed: SeedContext = SEED) -> Dialogue:
    return Dialogue(
        language="de",
        source="medal",
        seed=seed,
        participants=Participants(user="sim", assistant=chatbot),
        turns=[Turn(role="user", text="Hallo"), Turn(role="assistant", text=f"{chatbot}: Hi")],
    )


HUMAN = Dialogue(
    language="zh",
    turns=[Turn(role="user", text="你好"), Turn(role="assistant", text="你好呀")],
)


def self_chat(chatbot: str) -> Dialogue:
    return Dialogue(
        language="zh",
        source="selfchat",
        participants=Participants(user=chatbot, assistant=chatbot),
        turns=[*HUMAN.turns, Turn(role="user", text=f"{chatbot} 说")],
        end_reason="natural_end",
        metadata={"chatseed_dialogue": HUMAN.id},
    )


def judged(dialogue: Dialogue, protocol: str, result: dict[str, object]) -> Judgment:
    return Judgment(
        protocol=protocol,
        judge_model="judge",
        target=Target(dialogue_id=dialogue.id),
        parse_status="ok",
        result=result,
    )


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RunStore]:
    a, b, other_seed = (
        medal("bot-a"),
        medal("bot-b"),
        medal("bot-a", SEED.model_copy(update={"scene": "ein Zug"})),
    )
    chat = self_chat("bot-a")
    records = [
        judged(a, "issues", {"issues": {"repetitive": True}, "overall": 2}),
        judged(b, "issues", {"issues": {"repetitive": False}, "overall": 4}),
        judged(other_seed, "issues", {"issues": {"repetitive": False}, "overall": 5}),
        judged(HUMAN, "issues", {"issues": {"repetitive": False}, "overall": 5}),
        judged(chat, "unieval", {"ai_involved": True, "first_ai_index": 3}),
        Judgment(
            protocol="gteval",
            judge_model="judge",
            target=Target(dialogue_id=HUMAN.id, other_dialogue_id=chat.id),
            parse_status="ok",
            result={"winner": "second"},
        ),
    ]
    with RunStore.open(tmp_path / "run") as opened:
        with opened.invocation("test") as run:
            opened.add([a, b, other_seed, HUMAN, chat], run)
            opened.add(records, run)
        yield opened


def test_dialogues_of_one_seed_share_their_unit_and_others_have_their_own(store: RunStore) -> None:
    units = store.seed_units()
    by_chatbot = {
        (d.participants.assistant, d.seed.scene if d.seed else None): units[d.id]
        for d in store.records(Dialogue, source="medal")
    }
    assert by_chatbot[("bot-a", "ein Café")] == by_chatbot[("bot-b", "ein Café")]
    assert by_chatbot[("bot-a", "ein Zug")] != by_chatbot[("bot-a", "ein Café")]
    assert units[HUMAN.id] == f"dialogue:{HUMAN.id}"
    assert units[self_chat("bot-a").id] == f"chatseed:{HUMAN.id}"


def test_every_protocol_gives_its_figures_and_human_dialogues_none(store: RunStore) -> None:
    run = RunReads(store)
    found = observations(run.frame, run)
    assert set(found["chatbot"]) == {"bot-a", "bot-b"}
    values = found.set_index(["protocol", "dimension", "chatbot", "unit"])["value"]
    unit = store.seed_units()[medal("bot-a").id]
    assert values[("issues", "issues.repetitive", "bot-a", unit)] == 1.0
    assert values[("issues", "overall", "bot-b", unit)] == 4.0
    chat_unit = f"chatseed:{HUMAN.id}"
    assert values[("unieval", "judged_human", "bot-a", chat_unit)] == 0.0
    assert values[("gteval", "win", "bot-a", chat_unit)] == 1.0
    better = found.drop_duplicates("dimension").set_index("dimension")["better"]
    assert better["issues.repetitive"] == "lower"
    assert (better.drop("issues.repetitive") == "higher").all()


def test_a_run_with_no_judgments_has_no_figures(tmp_path: Path) -> None:
    with RunStore.open(tmp_path / "empty") as empty:
        run = RunReads(empty)
        frame = run.frame
        assert observations(frame, run).empty
        assert isinstance(frame, pd.DataFrame)
