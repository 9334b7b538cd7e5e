"""What a replay is, as `dialbench replay` writes it and judges, figures and pages read it: a
dialogue of source `replay` naming the recorded dialogue it replays (`metadata.replay_of`),
either a candidate's or the recorded side stored beside the candidates' (chatbot `recorded`,
the log's own model in `metadata.recorded_model`), with where its replies are
(`metadata.replayed_turns`) and where the recorded replies they replace are
(`metadata.recorded_turns`)."""

from __future__ import annotations

from collections.abc import Sequence

from dialbench.schema import Dialogue, Turn

SOURCE = "replay"
RECORDED_SIDE = "recorded"  # the chatbot of the recorded side of every replay


def replay_of(dialogue: Dialogue) -> str | None:
    """The id of the recorded dialogue a replay replays; None for any other dialogue."""
    recorded = dialogue.metadata.get("replay_of")
    return recorded if dialogue.source == SOURCE and isinstance(recorded, str) else None


def is_candidate(dialogue: Dialogue) -> bool:
    """A candidate's replay, not the recorded side stored beside the replays."""
    return replay_of(dialogue) is not None and "recorded_model" not in dialogue.metadata


def _indices(dialogue: Dialogue, key: str) -> list[int]:
    found = dialogue.metadata.get(key)
    return [i for i in found if isinstance(i, int)] if isinstance(found, list) else []


def replayed_turns(dialogue: Dialogue) -> list[int]:
    """Where a replay's replies are in its turns."""
    return _indices(dialogue, "replayed_turns")


def recorded_turns(dialogue: Dialogue) -> list[int]:
    """Where the recorded replies a replay replaced are in the recorded dialogue's turns."""
    return _indices(dialogue, "recorded_turns")


def reply_start(turns: Sequence[Turn], reply: int) -> int:
    """Where a reply's part begins: the tool turns just before it are its calls, so they are
    replayed, marked and shown with it."""
    start = reply
    while start > 0 and turns[start - 1].role == "tool":
        start -= 1
    return start
