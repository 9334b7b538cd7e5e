"""A run store with a known distribution of issues judgments in six languages.

Per language 54 judged dialogues: issue index k = i % 9 (0 = no issue, overall 5; else the k-th
issue, overall 1 + i % 4), chatbot (i // 9) % 3, user (i // 27) % 2, so every user x chatbot
pair has exactly one issue-free overall-5 dialogue and every issue occurs for every pair. The
uninterpretable dialogues of bot-0 are commented as mixed-language (in the language's words).
One more dialogue per language is judged unscored, and one is not judged at all.
"""

from __future__ import annotations

from pathlib import Path

from dialbench.schema import Dialogue, JudgeConfiguration, Judgment, Participants, Target, Turn
from dialbench.store import RunStore
from tests.judge.scripted import ISSUE_KEYS

LANGUAGES = ("en", "zh", "de", "fr", "pt", "es")
CHATBOTS = ("bot-0", "bot-1", "bot-2")
USERS = ("user-0", "user-1")
PER_LANGUAGE = 54
JUDGE = "judge-a"
MIXED_COMMENT = {
    "en": "turn 2 switches to Chinese halfway",
    "zh": "第二轮回复夹杂英文",
    "de": "Antwort 2 ist teilweise auf Englisch",
    "fr": "la réponse 2 passe à l'anglais",
    "pt": "a resposta 2 mistura espanhol",
    "es": "la respuesta 2 cambia al inglés",
}
PLAIN_COMMENT = "turn 2 makes no sense"


def dialogue(language: str, i: int, tag: str = "") -> Dialogue:
    return Dialogue(
        language=language,
        participants=Participants(user=USERS[(i // 27) % 2], assistant=CHATBOTS[(i // 9) % 3]),
        turns=[
            Turn(role="user", text=f"{language} question {i}{tag}"),
            Turn(role="assistant", text=f"{language} answer {i}{tag}"),
        ],
    )


def verdict(language: str, i: int, top_overall: int = 5) -> dict[str, object]:
    k = i % 9
    issue = ISSUE_KEYS[k - 1] if k else None
    issues = {key: key == issue for key in ISSUE_KEYS}
    comments = {}
    if issue == "uninterpretable":
        comments[issue] = MIXED_COMMENT[language] if (i // 9) % 3 == 0 else PLAIN_COMMENT
    elif issue:
        comments[issue] = f"turn 2 is {issue}"
    return {"issues": issues, "comments": comments, "overall": 1 + i % 4 if k else top_overall}


def judged(
    dialogue: Dialogue,
    result: dict[str, object] | None,
    judge: str = JUDGE,
    configuration: JudgeConfiguration | None = None,
) -> Judgment:
    return Judgment(
        protocol="issues",
        judge_model=judge,
        target=Target(dialogue_id=dialogue.id),
        configuration=configuration,
        parse_status="ok" if result is not None else "unscored",
        result=result,  # type: ignore[arg-type]
        error=None if result is not None else "unparseable",
    )


def make_store(path: Path, top_overall: int = 5) -> Path:
    """The store; `top_overall` is the issue-free dialogues' score (below 5: none has the top)."""
    dialogues, judgments = [], []
    for language in LANGUAGES:
        for i in range(PER_LANGUAGE):
            made = dialogue(language, i)
            dialogues.append(made)
            judgments.append(judged(made, verdict(language, i, top_overall)))
        unscored, unjudged = dialogue(language, 0, " again"), dialogue(language, 1, " unjudged")
        dialogues += [unscored, unjudged]
        judgments.append(judged(unscored, None))
    with RunStore.open(path) as store, store.invocation("test") as run:
        store.add(dialogues, run)
        store.add(judgments, run)
    return path


def add_judge_with_two_configurations(path: Path, judge: str = "judge-b") -> list[str]:
    """`judge` judges the English dialogues under two configurations; returns their names."""
    configurations = [JudgeConfiguration(options={"other": flag}) for flag in (False, True)]
    with RunStore.open(path) as store, store.invocation("test") as run:
        english = list(store.records(Dialogue, language="en"))
        store.add(
            [
                judged(d, verdict("en", n), judge, configuration)
                for configuration in configurations
                for n, d in enumerate(english)
            ],
            run,
        )
    return [f"{judge} [{c.fingerprint}]" for c in configurations]
