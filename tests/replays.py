"""Recorded dialogues and their replays (`dialbench replay`) as the replay command stores them,
built to its contract: a production log whose reply contradicts its tool's result and a
candidate that answers from the result (mode `last`), a two-reply log the candidate replays
with one tool call more (mode `every`: its turns shift), a replay that ended in an error, and
the recorded side the command stores beside the replays. Every test of what consumes replays
(the replay protocol, its figures, its report section, the web pages) uses these."""

from __future__ import annotations

from pathlib import Path

from dialbench.schema import Dialogue, Participants, ToolUse, Turn
from dialbench.store import RunStore

RECORDED_MODEL = "gpt-4o-mini-2024-07-18"
CANDIDATE = "local:qwen2.5-0.5b-instruct"
WEATHER = ToolUse(name="weather", arguments={"city": "Lisbon"}, call_id="call_1")
WRONG = "It is 12 °C and raining in Lisbon."  # what the tool returned says otherwise
RIGHT = "It is 21 °C and sunny in Lisbon."


def _recorded(turns: list[Turn], language: str = "en") -> Dialogue:
    return Dialogue(
        language=language,
        source="production",
        participants=Participants(assistant=RECORDED_MODEL),
        turns=turns,
        end_reason="natural_end",
    )


def _replay(
    recorded: Dialogue,
    turns: list[Turn],
    mode: str,
    replayed: list[int],
    recorded_at: list[int],
    candidate: str = CANDIDATE,
    **extra: object,
) -> Dialogue:
    return Dialogue(
        language=recorded.language,
        source="replay",
        seed=recorded.seed,
        participants=Participants(user=recorded.participants.user, assistant=candidate),
        turns=turns,
        end_reason="error" if "error" in extra else "natural_end",
        metadata={
            "replay_of": recorded.id,
            "replay_mode": mode,
            "replayed_turns": replayed,
            "recorded_turns": recorded_at,
            "tool_calls_not_recorded": 0,
            **extra,
        },
    )


def reply(text: str, model: str = CANDIDATE) -> Turn:
    return Turn(role="assistant", text=text, model=model)


ASKED = Turn(role="user", text="What is the weather in Lisbon?")
CALLED = Turn(role="tool", text="21 °C, sunny", tool=WEATHER)
THANKS = Turn(role="user", text="Thanks, I'll take an umbrella.")  # after the recorded reply
TOOL_LOG = _recorded([ASKED, CALLED, reply(WRONG, RECORDED_MODEL), THANKS])
LAST = _replay(TOOL_LOG, [ASKED, CALLED, reply(RIGHT)], "last", [2], [2])

GREETING = Turn(role="user", text="Hallo!")
ASKED_DE = Turn(role="user", text="Wie ist das Wetter in Lissabon?")
SEARCHED = Turn(
    role="tool", text="Lissabon: 21 °C", tool=ToolUse(name="search", arguments="wetter")
)
TWO_REPLIES = _recorded(
    [
        GREETING,
        reply("Hallo! Wie kann ich helfen?", RECORDED_MODEL),
        ASKED_DE,
        CALLED,
        reply("In Lissabon sind es 12 °C.", RECORDED_MODEL),
    ],
    "de",
)
EVERY = _replay(
    TWO_REPLIES,
    [
        GREETING,
        reply("Hallo! Was kann ich für Sie tun?"),
        ASKED_DE,
        SEARCHED,
        CALLED,
        reply("In Lissabon sind es 21 °C und sonnig."),
    ],
    "every",
    [1, 5],
    [1, 4],
)
BROKEN = "local:broken-bot"
FAILED = _replay(
    TWO_REPLIES,
    [GREETING, reply("Hallo!", BROKEN)],
    "every",
    [1],
    [1],
    candidate=BROKEN,
    error="the candidate's server refused the context: HTTP 500",
)
# The recorded side stored beside the replays: a replay whose replies are the recorded ones.
RECORDED_SIDE = Dialogue(
    language="en",
    source="replay",
    participants=Participants(assistant="recorded"),
    turns=TOOL_LOG.turns[:3],
    end_reason="natural_end",
    metadata={
        "replay_of": TOOL_LOG.id,
        "replay_mode": "last",
        "replayed_turns": [2],
        "recorded_turns": [2],
        "recorded_model": RECORDED_MODEL,
    },
)
RECORDINGS = (TOOL_LOG, TWO_REPLIES)
REPLAYS = (LAST, EVERY, FAILED)


def replay_run(path: Path, dialogues: tuple[Dialogue, ...] = (*RECORDINGS, *REPLAYS)) -> Path:
    """A run holding the dialogues, recorded ones first, as `dialbench replay` leaves it."""
    with RunStore.open(path) as store, store.invocation("test setup") as run:
        store.add(list(dialogues), run)
    return path
