"""What a review server puts before its reviewers (`dialbench serve RUN --review PROTOCOL`): one
judge's judgments under one protocol, chosen when the server starts and fixed while it runs.

The judge is named as reports name it: its spec, or `SPEC [c-…]` where it judged under several
configurations; with several and none named, the server does not start. A target's verdict is
that judge's sample 0 (as curation reads it), whatever number of samples was drawn. An unscored
judgment is shown with its raw output and reviewed on the dimensions the judge gives elsewhere,
with no verdict to agree with. Pairs of dialogues (arena) are not reviewed here.

An annotator of a benchmark reviews its dialogues the judge judged; a reviewer with no benchmark
(`annotate add NAME --languages ...`) reviews the judged dialogues themselves, in the order the
run stored them, shared among such reviewers as a benchmark's dialogues are among its annotators.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from dialbench.errors import DialbenchError
from dialbench.ratings import JudgeNames, choose_judge
from dialbench.schema import BenchmarkItem, Judgment, Record
from dialbench.store import RunStore
from dialbench.web.review import JudgedDimension, judged_dimensions

REVIEW_OPTION = "--review-judge"


class ReviewChoice(Record):
    """Which judge a server reviews: a protocol, and the judge under it (None: the only one)."""

    protocol: str
    judge: str | None = None


@dataclass(frozen=True, eq=False)  # one per server: its identity keys the rosters cached of it
class ReviewTask:
    protocol: str
    judge: str
    judgments: dict[str, list[Judgment]]  # dialogue id -> its judgments reviewed, turn by turn
    languages: dict[str, str]  # dialogue id -> its language
    unscored: list[JudgedDimension]  # the dimensions an unscored judgment is reviewed on
    samples: int  # the most samples the judge drew of one target
    dialogue_of: dict[str, str] = field(init=False)  # judgment id -> its dialogue
    dialogues: frozenset[str] = field(init=False)
    items: list[BenchmarkItem] = field(init=False)  # what reviewers with no benchmark share

    def __post_init__(self) -> None:
        dialogue_of = {j.id: d for d, found in self.judgments.items() for j in found}
        object.__setattr__(self, "dialogue_of", dialogue_of)
        object.__setattr__(self, "dialogues", frozenset(self.judgments))
        reason = f"judged by {self.judge} ({self.protocol})"
        items = [
            BenchmarkItem(dialogue_id=dialogue, language=language, reason=reason)
            for dialogue, language in self.languages.items()
        ]
        object.__setattr__(self, "items", items)

    @property
    def turn_level(self) -> bool:
        return any(j.target.kind == "turn" for found in self.judgments.values() for j in found)

    def verdicts(self, judgment: Judgment) -> list[JudgedDimension]:
        return judged_dimensions(judgment.result, self.unscored)

    def judged(self, dialogue_id: str) -> dict[str, tuple[Judgment, list[JudgedDimension]]]:
        """A dialogue's judgments under review, by id, with their verdicts."""
        return {j.id: (j, self.verdicts(j)) for j in self.judgments.get(dialogue_id, [])}

    @classmethod
    def load(cls, store: RunStore, choice: ReviewChoice) -> ReviewTask:
        run = store.path.parent
        judgments = list(store.records(Judgment, protocol=choice.protocol))
        if not judgments:
            judged = sorted({p for p, _ in store.group_counts(Judgment, "protocol")})
            raise DialbenchError(
                f"{run} holds no {choice.protocol} judgments to review (dialbench judge {run} "
                f"--protocol {choice.protocol}); protocols judged: {', '.join(judged) or 'none'}"
            )
        if any(j.target.kind == "pair" for j in judgments):
            raise DialbenchError(
                f"{choice.protocol} judges pairs of dialogues: a review shows one dialogue's "
                "verdicts (review a dialogue or turn protocol)"
            )
        judge = choose_judge(
            judgments, choice.judge, protocol=choice.protocol, where=str(run), option=REVIEW_OPTION
        )
        names = JudgeNames(judgments)
        chosen = [j for j in judgments if names(j) == judge]
        placements = store.dialogue_placements()
        position = {dialogue: n for n, dialogue in enumerate(placements)}
        firsts = [j for j in chosen if j.sample_index == 0 and j.target.dialogue_id in placements]
        unscored = _dimensions(firsts)
        kept: dict[str, list[Judgment]] = defaultdict(list)
        in_run_order = sorted(
            firsts, key=lambda j: (position[j.target.dialogue_id], j.target.turn_index or 0)
        )
        for judgment in in_run_order:
            if judged_dimensions(judgment.result, unscored):
                kept[judgment.target.dialogue_id].append(judgment)
        if not kept:
            raise DialbenchError(f"{judge} gave no verdict to review in {run} ({choice.protocol})")
        return cls(
            protocol=choice.protocol,
            judge=judge,
            judgments=dict(kept),
            languages={dialogue: placements[dialogue][0] for dialogue in kept},
            unscored=unscored,
            samples=1 + max(j.sample_index for j in chosen),
        )


def _dimensions(judgments: Iterable[Judgment]) -> list[JudgedDimension]:
    """Every dimension the judge gave a value on, in the order first met, without values."""
    found: dict[tuple[str, ...], JudgedDimension] = {}
    for judgment in judgments:
        for verdict in judged_dimensions(judgment.result, []):
            found.setdefault(
                verdict.path, verdict.model_copy(update={"value": None, "comment": None})
            )
    return list(found.values())
