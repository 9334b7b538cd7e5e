"""What a run store holds, counted the ways users ask: by language, source, model, protocol."""

from __future__ import annotations

from collections import Counter

import orjson
from pydantic import Field, JsonValue

from dialbench.failures import Failures
from dialbench.schema import Annotation, Benchmark, Dialogue, Judgment, Record
from dialbench.store import RunStore

HUMAN = "(human or unknown)"


class JudgmentCount(Record):
    protocol: str
    judge_model: str
    ok: int = 0
    unscored: int = 0


class AuditSampleCount(Record):
    """An audit sample (`dialbench audit draw`): its dialogues and how many are labelled, which
    is what corrects the figures (`stats`, `report`)."""

    name: str
    dialogues: int
    labelled: int


class StoreContents(Record):
    path: str
    schema_version: int
    runs: dict[str, int]
    processors: list[str] = Field(description="the CPUs the runs computed on (dialbench.machine)")
    imports_by_personal_data: dict[str, int] = Field(
        default_factory=dict, description="imports that redacted personal data, or kept it"
    )
    redacted: dict[str, int] = Field(
        default_factory=dict, description="what those imports redacted, by kind (counts only)"
    )
    dialogues: int
    turns: int
    by_language: dict[str, int]
    by_source: dict[str, int]
    by_user_model: dict[str, int]
    by_chatbot_model: dict[str, int]
    judgments: list[JudgmentCount]
    annotations_by_annotator: dict[str, int]
    audit_samples: list[AuditSampleCount] = Field(default_factory=list)


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


def count_contents(store: RunStore) -> StoreContents:
    def by(record_type: type[Dialogue] | type[Annotation], column: str) -> dict[str, int]:
        return {value or HUMAN: n for value, n in store.group_counts(record_type, column)}

    records = store.invocations()
    runs = Counter(f"{run.command} ({run.status})" for run in records)
    imports = [run.config for run in records if run.command == "import"]
    personal_data = Counter(
        mode for config in imports if (mode := _personal_data(config)) is not None
    )
    redacted = Counter[str]()
    for config in imports:
        if isinstance(found := config.get("redacted"), dict):
            redacted.update({kind: n for kind, n in found.items() if isinstance(n, int) and n})
    return StoreContents(
        path=str(store.path),
        schema_version=store.schema_version,
        runs=dict(runs),
        processors=sorted({run.processor or "not recorded" for run in records}),
        imports_by_personal_data=dict(personal_data),
        redacted=dict(redacted),
        dialogues=store.count(Dialogue),
        turns=store.turn_count(),
        by_language=by(Dialogue, "language"),
        by_source=by(Dialogue, "source"),
        by_user_model=by(Dialogue, "user_model"),
        by_chatbot_model=by(Dialogue, "assistant_model"),
        judgments=_judgment_counts(store),
        annotations_by_annotator=by(Annotation, "annotator_id"),
        audit_samples=_audit_samples(store),
    )


def _audit_samples(store: RunStore) -> list[AuditSampleCount]:
    samples = [b for b in store.records(Benchmark) if b.design is not None]
    if not samples:
        return []
    labelled = {
        a.target.dialogue_id
        for a in store.records(Annotation)
        if a.complete and a.review_of is None
    }
    return [
        AuditSampleCount(
            name=b.name,
            dialogues=len(b.items),
            labelled=sum(item.dialogue_id in labelled for item in b.items),
        )
        for b in samples
    ]


def _personal_data(config: dict[str, JsonValue]) -> str | None:
    """How an import treated personal data, from its run's config (None: imported before
    redaction existed)."""
    options = config.get("options")
    mode = options.get("personal_data") if isinstance(options, dict) else None
    return mode if isinstance(mode, str) else None


def stored_failures(store: RunStore) -> list[tuple[Failures, int]]:
    """The dialogues that ended in `error` and the unscored judgments the store holds, by
    reason, each with how many of its kind it holds: what a pipeline left undone, whichever
    stages and shards made it. Dialogues are read as JSON, not records: a scan of a large run."""
    dialogues = Failures(what="dialogues")
    for stored in store.records_json(Dialogue):
        dialogue = orjson.loads(stored)
        if dialogue.get("end_reason") == "error":
            dialogues.add((dialogue.get("metadata") or {}).get("error"))
    judgments = Failures(what="judgments")
    for judgment in store.records(Judgment, parse_status="unscored"):
        judgments.add(judgment.error)
    return [(dialogues, store.count(Dialogue)), (judgments, store.count(Judgment))]
