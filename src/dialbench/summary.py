"""What a run store holds, counted the ways users ask: by language, source, model, protocol."""

from __future__ import annotations

from collections import Counter

from dialbench.schema import Annotation, Dialogue, Judgment, Record
from dialbench.store import RunStore

HUMAN = "(human or unknown)"


class JudgmentCount(Record):
    protocol: str
    judge_model: str
    ok: int = 0
    unscored: int = 0


class StoreSummary(Record):
    path: str
    schema_version: int
    runs: dict[str, int]
    dialogues: int
    turns: int
    by_language: dict[str, int]
    by_source: dict[str, int]
    by_user_model: dict[str, int]
    by_chatbot_model: dict[str, int]
    judgments: list[JudgmentCount]
    annotations_by_annotator: dict[str, int]


def _judgment_counts(store: RunStore) -> list[JudgmentCount]:
    counts: dict[tuple[str, str], JudgmentCount] = {}
    for protocol, judge, status, n in store.group_counts(
        Judgment, "protocol", "judge_model", "parse_status"
    ):
        row = counts.setdefault(
            (protocol, judge), JudgmentCount(protocol=protocol, judge_model=judge)
        )
        setattr(row, status, n)
    return sorted(counts.values(), key=lambda c: (c.protocol, c.judge_model))


def summarize(store: RunStore) -> StoreSummary:
    def by(record_type: type[Dialogue] | type[Annotation], column: str) -> dict[str, int]:
        return {value or HUMAN: n for value, n in store.group_counts(record_type, column)}

    runs = Counter(f"{run.command} ({run.status})" for run in store.runs())
    return StoreSummary(
        path=str(store.path),
        schema_version=store.schema_version,
        runs=dict(runs),
        dialogues=store.count(Dialogue),
        turns=store.turn_count(),
        by_language=by(Dialogue, "language"),
        by_source=by(Dialogue, "source"),
        by_user_model=by(Dialogue, "user_model"),
        by_chatbot_model=by(Dialogue, "assistant_model"),
        judgments=_judgment_counts(store),
        annotations_by_annotator=by(Annotation, "annotator_id"),
    )
