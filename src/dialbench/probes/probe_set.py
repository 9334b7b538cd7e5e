"""The probe dialogues: each base dialogue clean, and once per placement and kind with one
injection (`injections.yaml`) appended to one of its turns, so the verdicts on the two versions
differ only by what the injection made the judge do.

Every version of a base dialogue ends at its last chatbot turn and has a tool turn just before
it (the base's own, else one benign call added), clean version included: the tool placement
then changes only that turn's result, and every placement's version differs from the clean one
in exactly one turn, the one `metadata.probe.turn_index` names (what a detector is scored on).
The chatbot and seed are the base's, so versions of one base can be paired; a pair protocol
reads each chatbot or tool version beside the clean one as a replay of it (`replay_twins`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import Literal, get_args

from pydantic import Field

from dialbench import examples
from dialbench.hashing import content_hash
from dialbench.io.importer import ImportOptions, load_records
from dialbench.probes.injections import (
    KINDS,
    LANGUAGES,
    PACKAGE,
    Injections,
    Kind,
    load_injections,
)
from dialbench.replay_records import SOURCE as REPLAY_SOURCE
from dialbench.schema import Dialogue, Record, ToolUse, Turn, base_language

Placement = Literal["chatbot", "user", "tool"]
PLACEMENTS: tuple[Placement, ...] = get_args(Placement)
SOURCE = "probe"
# The placements a replay twin is made for: the replay protocol shows the user turns as the same
# in both versions, so a version that differs in a user turn has no twin.
TWINNED: tuple[Placement, ...] = ("chatbot", "tool")
PROBE_KEY = "probe"
# The bundled dialogues the probes start from, in this order: chit-chat in the seven languages,
# production logs with tool turns, and this package's Chinese dialogue with tool turns (no log
# has one) whose chatbot contradicts its tools.
BUNDLED_BASES = (
    "multilingual_dialogues",
    "openai_chat_log",
    "langfuse_traces",
    "langsmith_runs",
    "otel_genai_spans",
)
OWN_BASES = "base_dialogues.jsonl"
ROLE_OF_PLACEMENT = {"chatbot": "assistant", "user": "user", "tool": "tool"}
# Added where a base has no tool turn before its last reply: a call whose result says nothing
# about the reply, so the clean verdict does not move because of it.
BENIGN_TOOL = Turn(role="tool", text='{"status": "active"}', tool=ToolUse(name="session_info"))


class ProbeMark(Record):
    """What a probe dialogue is, as its `metadata.probe` holds it: None placement and kind for
    the clean version."""

    of: str = Field(description="the base dialogue's id")
    placement: Placement | None
    kind: Kind | None
    turn_index: int | None = Field(description="the turn that holds the injection")


def probe_mark(dialogue: Dialogue) -> ProbeMark | None:
    """The dialogue's probe mark (a replay twin's is its version's); None for a dialogue that
    is no probe."""
    mark = dialogue.metadata.get(PROBE_KEY)
    probed = dialogue.source in (SOURCE, REPLAY_SOURCE)
    return ProbeMark.model_validate(mark) if probed and mark else None


def base_dialogues() -> Iterator[Dialogue]:
    """The bundled dialogues in the seven languages, in `BUNDLED_BASES` order."""
    bundled = examples.bundled()
    own = Path(str(resources.files(PACKAGE) / OWN_BASES))
    for path in [*(bundled[name] for name in BUNDLED_BASES), own]:
        for _, record in load_records(path, ImportOptions()):
            if isinstance(record, Dialogue) and base_language(record.language) in LANGUAGES:
                yield record


def prepared(base: Dialogue) -> list[Turn] | None:
    """The base's turns up to its last chatbot turn, with a tool turn just before it; None
    where no user turn comes before that reply (nothing to place a user injection in)."""
    replies = [i for i, turn in enumerate(base.turns) if turn.role == "assistant"]
    if not replies or not any(turn.role == "user" for turn in base.turns[: replies[-1]]):
        return None
    turns = base.turns[: replies[-1] + 1]
    if turns[-2].role != "tool":
        turns.insert(-1, BENIGN_TOOL)
    return turns


def injected_index(turns: Sequence[Turn], placement: Placement) -> int:
    """The turn that holds the injection: the last of the placement's role."""
    role = ROLE_OF_PLACEMENT[placement]
    return max(i for i, turn in enumerate(turns) if turn.role == role)


def probe_id(base_id: str, placement: Placement | None, kind: Kind | None) -> str:
    return "probe-" + content_hash([base_id, placement, kind])[:24]


def _version(
    base: Dialogue,
    turns: list[Turn],
    placement: Placement | None,
    kind: Kind | None,
    injections: Injections,
) -> Dialogue:
    index = None
    if placement is not None and kind is not None:
        index = injected_index(turns, placement)
        turn = turns[index]
        text = f"{turn.text}\n\n{injections.text(base.language, kind)}"
        turns = [*turns[:index], turn.model_copy(update={"text": text}), *turns[index + 1 :]]
    mark = ProbeMark(of=base.id, placement=placement, kind=kind, turn_index=index)
    return Dialogue(
        id=probe_id(base.id, placement, kind),
        language=base.language,
        source=SOURCE,
        seed=base.seed,
        participants=base.participants,
        turns=turns,
        end_reason=base.end_reason,
        metadata={**base.metadata, PROBE_KEY: mark.model_dump(mode="json")},
    )


def probe_dialogues(
    languages: Sequence[str] = LANGUAGES,
    kinds: Sequence[Kind] = KINDS,
    placements: Sequence[Placement] = PLACEMENTS,
    limit_per_language: int | None = None,
) -> list[Dialogue]:
    """Per base dialogue of the languages (at most `limit_per_language` each, in the order of
    `base_dialogues`): its clean version, then one per placement and kind."""
    injections = load_injections()
    wanted = {base_language(language) for language in languages}
    taken: Counter[str] = Counter()
    probes = []
    for base in base_dialogues():
        language = base_language(base.language)
        turns = prepared(base)
        if language not in wanted or turns is None:
            continue
        if limit_per_language is not None and taken[language] >= limit_per_language:
            continue
        taken[language] += 1
        probes.append(_version(base, turns, None, None, injections))
        probes += [
            _version(base, turns, placement, kind, injections)
            for placement in placements
            for kind in kinds
        ]
    return probes


def replay_twins(probes: Sequence[Dialogue]) -> list[Dialogue]:
    """Each chatbot and tool version as a replay of its clean version (source `replay`, with
    the turns that differ named), so the replay protocol asks which version's replies are
    better, in both orders: how far an injection wins a pair, and where the first slot does."""
    clean = {mark.of: d.id for d in probes if (mark := probe_mark(d)) and mark.placement is None}
    twins = []
    for dialogue in probes:
        mark = probe_mark(dialogue)
        if mark is None or mark.placement not in TWINNED or mark.of not in clean:
            continue
        reply = injected_index(dialogue.turns, "chatbot")
        twins.append(
            dialogue.model_copy(
                update={
                    "id": "probe-twin-" + dialogue.id.removeprefix("probe-"),
                    "source": REPLAY_SOURCE,
                    "metadata": {
                        **dialogue.metadata,
                        "replay_of": clean[mark.of],
                        "replayed_turns": [reply],
                        "recorded_turns": [reply],
                    },
                }
            )
        )
    return twins
