"""The judged dialogues curation chooses from: one issues judge's verdicts, read from the store.

A judge is named as the report names it: its model spec, or `SPEC [c-…]` where it judged under
several configurations. Each dialogue's label is that judge's sample 0: the one verdict the paper
curated from, the same whatever number of samples was drawn later. An unscored sample 0 is never a
label: that dialogue is left out and counted.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from pydantic import ValidationError

from dialbench.curate.selection import Candidate
from dialbench.errors import DialbenchError
from dialbench.judge.protocols.issues import IssuesAnswer, IssuesProtocol
from dialbench.ratings import JudgeNames, choose_judge, configuration_of
from dialbench.schema import Dialogue, Judgment
from dialbench.store import RunStore
from dialbench.store_contents import HUMAN

Excluded = dict[str, list[str]]
UNSCORED = "unscored"
NOT_JUDGED = "not-judged"
MALFORMED = "malformed-result"


@dataclass
class JudgedDialogues:
    """The chosen judge's candidates, the dialogues it gives no label for (reason -> ids), and
    the store's dialogues by id (to export the picked ones)."""

    judge: str
    configuration: str
    candidates: list[Candidate]
    left_out: Excluded = field(default_factory=dict)
    dialogues: dict[str, Dialogue] = field(default_factory=dict)


def _judges_elsewhere(store: RunStore) -> str:
    found = sorted({f"{judge} ({protocol})" for protocol, judge, _ in _protocol_judges(store)})
    return "; judges of other protocols: " + ", ".join(found) if found else ""


def _protocol_judges(store: RunStore) -> list[tuple[str, str, int]]:
    return [
        (protocol, judge, n)
        for protocol, judge, n in store.group_counts(Judgment, "protocol", "judge_model")
        if protocol != IssuesProtocol.name
    ]


def _issues_judge(store: RunStore, judgments: list[Judgment], wanted: str | None) -> str:
    """The judge's name among the issues judges, or an error listing the ones there are."""
    run = store.path.parent
    if not judgments:
        raise DialbenchError(
            f"{run} holds no issues judgments to curate from "
            f"(dialbench judge {run} --protocol issues){_judges_elsewhere(store)}"
        )
    return choose_judge(
        judgments,
        wanted,
        protocol=IssuesProtocol.name,
        where=str(run),
        option="--judge",
        elsewhere=_judges_elsewhere(store),
    )


def _candidate(dialogue: Dialogue, answer: IssuesAnswer) -> Candidate:
    return Candidate(
        dialogue_id=dialogue.id,
        language=dialogue.language,
        user=dialogue.participants.user or HUMAN,
        chatbot=dialogue.participants.assistant or HUMAN,
        issues=frozenset(key for key, present in answer.issues.items() if present),
        overall=answer.overall,
        comments=answer.comments,
    )


def judged_dialogues(
    store: RunStore, judge: str | None, languages: frozenset[str] = frozenset()
) -> JudgedDialogues:
    """Every dialogue (of `languages`, default all) as a candidate, or as left out and why."""
    judgments = [
        j
        for j in store.records(Judgment, protocol=IssuesProtocol.name)
        if j.target.kind == "dialogue"
    ]
    chosen = _issues_judge(store, judgments, judge)
    names = JudgeNames(judgments)
    first = {
        j.target.dialogue_id: j for j in judgments if names(j) == chosen and j.sample_index == 0
    }
    configuration = next(configuration_of(j) for j in judgments if names(j) == chosen)
    result = JudgedDialogues(judge=chosen, configuration=configuration, candidates=[])
    left_out: Excluded = defaultdict(list)
    for dialogue in store.records(Dialogue):
        if languages and dialogue.language not in languages:
            continue
        result.dialogues[dialogue.id] = dialogue
        judgment = first.get(dialogue.id)
        if judgment is None:
            left_out[NOT_JUDGED].append(dialogue.id)
        elif judgment.result is None:
            left_out[UNSCORED].append(dialogue.id)
        else:
            try:
                answer = IssuesAnswer.model_validate(judgment.result)
            except ValidationError:
                left_out[MALFORMED].append(dialogue.id)
                continue
            result.candidates.append(_candidate(dialogue, answer))
    result.left_out = dict(left_out)
    return result
