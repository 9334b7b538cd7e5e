"""A run with three judges of MEDAL's issues protocol whose answers are fixed by hand, so every
panel value can be worked out on paper: in English the humans answer as judge A and judges B
and C answer the opposite; in Chinese the humans answer as C, A the opposite, and B judged no
Chinese dialogue; German has no human labels. Two English dialogues have failed members."""

from __future__ import annotations

from pathlib import Path

from dialbench.schema import Annotation, Dialogue, Judgment, Participants, Target, Turn
from dialbench.store import RunStore
from tests.judge.scripted import ISSUE_KEYS

A, B, C = "ollama:qwen2.5:7b", "openai:gpt-4o-mini", "ollama:llama3.1:8b"
CHATBOTS = ("ollama:qwen2.5:72b", "ollama:mistral-nemo")
OVERALL = [1, 2, 3, 4, 5, 1]  # the answer humans agree with, per dialogue
FLAG = [True, False, True, False, True, False]  # issues.repetitive, likewise


def answer(repetitive: bool, overall: int) -> dict[str, object]:
    issues = {key: key == "repetitive" and repetitive for key in ISSUE_KEYS}
    return {"issues": issues, "comments": {}, "overall": overall}


def dialogue(language: str, i: int) -> Dialogue:
    return Dialogue(
        language=language,
        participants=Participants(user="sim", assistant=CHATBOTS[i % 2]),
        turns=[Turn(role="user", text=f"{language} {i}"), Turn(role="assistant", text="ok")],
    )


def judgment(judge: str, target: Dialogue, result: dict[str, object] | None) -> Judgment:
    return Judgment(
        protocol="issues",
        judge_model=judge,
        target=Target(dialogue_id=target.id),
        parse_status="ok" if result else "unscored",
        result=result,
        error=None if result else "unparseable",
    )


def make_panel_run(path: Path) -> dict[str, list[Dialogue]]:
    """The run; its dialogues per language (en: 6 answered by all, then one with B and C
    failed, one with C failed)."""
    made: dict[str, list[Dialogue]] = {
        "en": [dialogue("en", i) for i in range(8)],
        "zh": [dialogue("zh", i) for i in range(6)],
        "de": [dialogue("de", i) for i in range(2)],
    }
    records: list[Dialogue | Judgment | Annotation] = [d for ds in made.values() for d in ds]
    for i, d in enumerate(made["en"][:6]):
        right, wrong = answer(FLAG[i], OVERALL[i]), answer(not FLAG[i], 6 - OVERALL[i])
        records += [judgment(A, d, right), judgment(B, d, wrong), judgment(C, d, wrong)]
        records += [
            Annotation(annotator_id=h, target=Target(dialogue_id=d.id), labels=right)
            for h in ("h1", "h2")
        ]
    late, last = made["en"][6], made["en"][7]
    records += [
        judgment(A, late, answer(True, 4)),
        judgment(B, late, None),
        judgment(C, late, None),
    ]
    records += [
        judgment(A, last, answer(True, 2)),
        judgment(B, last, answer(False, 5)),
        judgment(C, last, None),
    ]
    for i, d in enumerate(made["zh"]):
        right, wrong = answer(FLAG[i], OVERALL[i]), answer(not FLAG[i], 6 - OVERALL[i])
        records += [judgment(A, d, wrong), judgment(C, d, right)]
        records += [
            Annotation(annotator_id=h, target=Target(dialogue_id=d.id), labels=right)
            for h in ("h1", "h2")
        ]
    for d in made["de"]:
        records += [
            judgment(A, d, answer(True, 1)),
            judgment(B, d, answer(False, 2)),
            judgment(C, d, answer(False, 4)),
        ]
    with RunStore.open(path) as store, store.invocation("import") as run:
        store.add(records, run)
    return made
