"""Dataset statistics in the columns of MEDAL's Table 3, per language, plus what only a simulated
run has: the validator's acceptance per turn, how dialogues ended, and tokens and cost per role.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from pydantic import Field

from dialbench.analysis.text import length_unit, mtld, tokens, utterance_length
from dialbench.schema import ALL_LANGUAGES, Dialogue, Record, Turn, UsageLine, speaker_turns
from dialbench.store import RunStore


class LanguageStats(Record):
    """One language (or `all`). Lengths are means per utterance, in `length_unit`; MTLD is over
    all utterances of the language together (`all` mixes units, so it has neither). Tool turns
    are no utterance: they are counted apart and are in no other figure."""

    language: str
    dialogues: int
    turns_per_dialogue: float = Field(description="utterances of the two sides")
    length_unit: str | None
    utterance_length: float | None
    user_utterance_length: float | None
    assistant_utterance_length: float | None
    mtld: float | None
    end_reasons: dict[str, int]
    tool_turns_per_dialogue: float = Field(
        default=0.0, description="tool calls and retrieved contexts"
    )


class TurnAcceptance(Record):
    """The validator on user turns at one position of the dialogue (0 = first utterance)."""

    language: str
    turn_index: int
    turns: int
    attempts: int
    accepted_first_try: int
    acceptance_rate: float = Field(description="accepted attempts / attempts")


class DatasetStats(Record):
    languages: list[LanguageStats] = Field(default_factory=list)
    acceptance: list[TurnAcceptance] = Field(default_factory=list)
    usage: list[UsageLine] = Field(default_factory=list, description="summed over runs")


def _mean(values: list[int]) -> float | None:
    return sum(values) / len(values) if values else None


def language_stats(language: str, dialogues: list[Dialogue], *, measure: bool) -> LanguageStats:
    lengths: dict[str, list[int]] = defaultdict(list)
    words: list[str] = []
    if measure:
        for dialogue in dialogues:
            for turn in speaker_turns(dialogue.turns):
                if turn.metadata.get("validation_failed"):
                    continue  # a placeholder for the attempts, not an utterance anyone made
                lengths[turn.role].append(utterance_length(turn.text, dialogue.language))
                words += tokens(turn.text, dialogue.language)
    utterances = sum(len(speaker_turns(d.turns)) for d in dialogues)
    tool_turns = sum(len(d.turns) for d in dialogues) - utterances
    return LanguageStats(
        language=language,
        dialogues=len(dialogues),
        turns_per_dialogue=utterances / len(dialogues),
        length_unit=length_unit(language) if measure else None,
        utterance_length=_mean(lengths["user"] + lengths["assistant"]),
        user_utterance_length=_mean(lengths["user"]),
        assistant_utterance_length=_mean(lengths["assistant"]),
        mtld=mtld(words) if measure else None,
        end_reasons=dict(Counter(d.end_reason or "unknown" for d in dialogues)),
        tool_turns_per_dialogue=tool_turns / len(dialogues),
    )


def _validated(turn: Turn) -> bool:
    return turn.role == "user" and any(a.verdict is not None for a in turn.attempts)


def acceptance_by_turn(language: str, dialogues: list[Dialogue]) -> list[TurnAcceptance]:
    by_index: dict[int, list[Turn]] = defaultdict(list)
    for dialogue in dialogues:
        for index, turn in enumerate(dialogue.turns):
            if _validated(turn):
                by_index[index].append(turn)
    rows = []
    for index in sorted(by_index):
        turns = by_index[index]
        verdicts = [a.verdict for t in turns for a in t.attempts if a.verdict is not None]
        rows.append(
            TurnAcceptance(
                language=language,
                turn_index=index,
                turns=len(turns),
                attempts=len(verdicts),
                accepted_first_try=sum(t.attempts[0].verdict == "accepted" for t in turns),
                acceptance_rate=verdicts.count("accepted") / len(verdicts),
            )
        )
    return rows


def dataset_statistics(store: RunStore, source: str | None = None) -> DatasetStats:
    """Statistics of the store's dialogues (of one source, e.g. `medal`, when given); empty lists
    when there are none."""
    by_language: dict[str, list[Dialogue]] = defaultdict(list)
    for dialogue in store.records(Dialogue, **({"source": source} if source else {})):
        by_language[dialogue.language].append(dialogue)
    everything = [d for dialogues in by_language.values() for d in dialogues]
    stats = DatasetStats(usage=store.usage())
    if not everything:
        return stats
    stats.languages.append(language_stats(ALL_LANGUAGES, everything, measure=False))
    for language in sorted(by_language):
        stats.languages.append(language_stats(language, by_language[language], measure=True))
        stats.acceptance += acceptance_by_turn(language, by_language[language])
    return stats
