"""A run for the web app's tests: multilingual dialogues (one hostile, one simulated with
rejected attempts), MEDAL issues judgments, two benchmarks and three annotators; and, added on
request, three chatbots' dialogues of one seed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fastapi.testclient import TestClient

from dialbench.schema import (
    Benchmark,
    BenchmarkItem,
    Dialogue,
    GenerationAttempt,
    Judgment,
    Participants,
    SeedContext,
    Target,
    Turn,
)
from dialbench.store import RunStore
from dialbench.web.annotators import add_annotator
from tests.judge.scripted import ISSUE_KEYS

ORGANISER_TOKEN = "organiser-secret-for-tests"
# A client that opened the secret link with this token (None: no link opened).
Client = Callable[[str | None], TestClient]

HOSTILE = (
    "<script>window.pwned = 'script'</script> "
    "<img src=x onerror=\"window.pwned = 'img'\"> "
    "<a href=\"javascript:window.pwned = 'link'\">click me</a> javascript:alert(1)"
)
TEXTS = {
    "en": ("I just lost my job and feel awful.", "Have you tried being happier?"),
    "zh": ("我今天心情不好，工作压力很大。", "压力大的时候可以出去散散步。"),
    "pt": ("Perdi o meu cão ontem.", "Que pena! Os cães são ótimos."),
}


@dataclass
class WebRun:
    path: Path
    dialogues: list[Dialogue]
    tokens: dict[str, str]

    def ids(self, language: str) -> list[str]:
        return [d.id for d in self.dialogues if d.language == language]


def _dialogues() -> list[Dialogue]:
    made = []
    for language, (user, bot) in TEXTS.items():
        for n, chatbot in enumerate(("bot-a", "bot-b")):
            attempts = [
                GenerationAttempt(
                    text="As an AI language model, I feel sad.",
                    verdict="rejected",
                    feedback="sounds like an assistant, not a person",
                    validator_model="validator-v",
                ),
                GenerationAttempt(text=f"{user} ({n})", verdict="accepted"),
            ]
            made.append(
                Dialogue(
                    language=language,
                    source="simulated",
                    participants=Participants(user="sim-u", assistant=chatbot),
                    turns=[
                        Turn(role="user", text=f"{user} ({n})", model="sim-u", attempts=attempts),
                        Turn(role="assistant", text=bot, model=chatbot),
                    ],
                )
            )
    made.append(
        Dialogue(
            language="en",
            source="<script>window.pwned = 'source'</script>",
            participants=Participants(user="sim-u", assistant="<img src=x onerror=alert(1)>"),
            turns=[Turn(role="user", text=HOSTILE), Turn(role="assistant", text=HOSTILE)],
        )
    )
    return made


def _issues(dialogue: Dialogue, judge: str) -> Judgment:
    """bot-b lacks empathy everywhere; judge-y cannot be parsed on Portuguese."""
    target = Target(dialogue_id=dialogue.id)
    if judge == "judge-y" and dialogue.language == "pt":
        return Judgment(
            protocol="issues",
            judge_model=judge,
            target=target,
            parse_status="unscored",
            raw_output="<b>not json</b>",
            error="unparseable",
        )
    flagged = dialogue.participants.assistant == "bot-b"
    issues = {key: key == "lacks_empathy" and flagged for key in ISSUE_KEYS}
    return Judgment(
        protocol="issues",
        judge_model=judge,
        target=target,
        parse_status="ok",
        result={
            "issues": issues,
            "comments": {"lacks_empathy": "dismisses the user"} if flagged else {},
            "overall": 2 if flagged else 4,
        },
        raw_output="{}",
    )


def make_web_run(path: Path) -> WebRun:
    dialogues = _dialogues()
    with RunStore.open(path) as store:
        with store.invocation("test setup") as run:
            store.add(dialogues, run)
            store.add(
                [_issues(d, judge) for d in dialogues for judge in ("judge-x", "judge-y")], run
            )
            store.add(
                [
                    Benchmark(
                        name="bench",
                        items=[
                            BenchmarkItem(dialogue_id=d.id, language=d.language, reason="test")
                            for d in dialogues
                        ],
                    ),
                    Benchmark(
                        name="other",
                        items=[
                            BenchmarkItem(dialogue_id=d.id, language=d.language, reason="test")
                            for d in dialogues
                            if d.language == "pt"
                        ],
                    ),
                ],
                run,
            )
        tokens = {
            name: add_annotator(store, name, benchmark, languages).token
            for name, benchmark, languages in (
                ("alice", "bench", ["en", "zh"]),
                ("bob", "bench", ["en"]),
                ("carol", "other", ["pt"]),
            )
        }
    return WebRun(path=path, dialogues=dialogues, tokens=tokens)


SEED = SeedContext(language="de", scene="lost a job", persona="a nurse of 40")
FIRST_TURN = "Ich habe heute meinen Job verloren."
SEED_REPLIES = {
    "bot-a": ("Das tut mir leid. Wie geht es dir?", "Nicht gut.", "Ich bin für dich da."),
    "bot-b": ("Such dir einfach einen neuen.",),
    "<img src=x onerror=alert(1)>": (HOSTILE,),
}


def add_seed_dialogues(path: Path) -> list[Dialogue]:
    """German dialogues of one MEDAL seed, one per chatbot of SEED_REPLIES (one hostile), all
    from the same first user turn; judge-x's issues verdicts on each."""
    first = Turn(
        role="user",
        text=FIRST_TURN,
        model="sim-u",
        attempts=[
            GenerationAttempt(text="Hallo.", verdict="rejected", feedback="says nothing"),
            GenerationAttempt(text=FIRST_TURN, verdict="accepted"),
        ],
    )
    dialogues = [
        Dialogue(
            language="de",
            source="simulated",
            seed=SEED,
            participants=Participants(user="sim-u", assistant=chatbot),
            turns=[
                first,
                *(
                    Turn(role="assistant" if n % 2 == 0 else "user", text=text)
                    for n, text in enumerate(replies)
                ),
            ],
        )
        for chatbot, replies in SEED_REPLIES.items()
    ]
    with RunStore.open(path, create=False) as store, store.invocation("test setup") as run:
        store.add(dialogues, run)
        store.add([_issues(d, "judge-x") for d in dialogues], run)
    return dialogues
