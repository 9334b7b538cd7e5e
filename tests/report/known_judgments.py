"""A run store with known judgments: 2 chatbots x 3 languages, 2 judges, all three protocols,
repeated samples and unscored outputs, so every report figure has a value to check. Its
dialogues have no seed (each is its own unit, and the chatbots are compared unpaired), or, in
the seeded variant, the two chatbots' i-th dialogues of a language grew from one seed context
(compared seed by seed)."""

from __future__ import annotations

from pathlib import Path

from dialbench.schema import Dialogue, Judgment, Participants, SeedContext, Target, Turn, Usage
from dialbench.store import RunStore
from tests.judge.scripted import ISSUE_KEYS

CHATBOTS = ("bot-a", "bot-b")
LANGUAGES = ("en", "zh", "de")
JUDGES = ("judge-x", "judge-y")
PER_CELL = 4


def dialogues(seeded: bool = False) -> list[Dialogue]:
    return [
        Dialogue(
            language=language,
            seed=SeedContext(language=language, scene=f"scene {i}") if seeded else None,
            participants=Participants(user="sim", assistant=chatbot),
            turns=[
                Turn(role="user", text=f"hello {i}"),
                Turn(role="assistant", text=f"{chatbot} answers {i} in {language}"),
            ],
        )
        for chatbot in CHATBOTS
        for language in LANGUAGES
        for i in range(PER_CELL)
    ]


def issues_result(dialogue: Dialogue, index: int) -> dict[str, object]:
    """bot-b in German is always repetitive; bot-a is flagged irrelevant once per cell."""
    flagged = {
        "repetitive": dialogue.participants.assistant == "bot-b" and dialogue.language == "de",
        "irrelevant": dialogue.participants.assistant == "bot-a" and index == 0,
    }
    issues = {key: flagged.get(key, False) for key in ISSUE_KEYS}
    comments = {key: "turn 1" for key, present in issues.items() if present}
    return {"issues": issues, "comments": comments, "overall": 2 if any(issues.values()) else 5}


def judgments(dialogues: list[Dialogue]) -> list[Judgment]:
    made = []
    for judge in JUDGES:
        for n, dialogue in enumerate(dialogues):
            index = n % PER_CELL
            target = Target(dialogue_id=dialogue.id)
            usage = Usage(prompt_tokens=100, completion_tokens=10, cost_usd=0.001)
            if judge == "judge-y" and index == 3:
                made.append(
                    Judgment(
                        protocol="issues",
                        judge_model=judge,
                        target=target,
                        parse_status="unscored",
                        raw_output="{trunc",
                        usage=usage,
                        error="unparseable",
                    )
                )
            else:
                made.append(
                    Judgment(
                        protocol="issues",
                        judge_model=judge,
                        target=target,
                        parse_status="ok",
                        result=issues_result(dialogue, index),
                        raw_output="{}",
                        usage=usage,
                    )
                )
            for sample in range(2):
                quality = 2 if dialogue.participants.assistant == "bot-a" else sample
                made.append(
                    Judgment(
                        protocol="holistic",
                        judge_model=judge,
                        target=target,
                        sample_index=sample,
                        parse_status="ok",
                        result={"quality": quality, "reason": "why"},
                    )
                )
            made.append(
                Judgment(
                    protocol="submetrics",
                    judge_model=judge,
                    target=Target(dialogue_id=dialogue.id, turn_index=1),
                    parse_status="ok",
                    result={"understandability": 4, "sensibleness": 3},
                )
            )
    return made


def make_store(path: Path, seeded: bool = False) -> Path:
    with RunStore.open(path) as store, store.invocation("test") as run:
        made = dialogues(seeded)
        store.add(made, run)
        store.add(judgments(made), run)
    return path
