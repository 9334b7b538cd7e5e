"""How each stored record type maps onto its table: the columns copied out of the record for
filtering beside the whole record, kept as canonical JSON."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from dialbench.hashing import canonical_json
from dialbench.schema import (
    Annotation,
    Annotator,
    Benchmark,
    Dialogue,
    Judgment,
    StageRecord,
    StoredRecord,
    Target,
)


@dataclass(frozen=True)
class Table:
    """One record type's table: its name, the columns copied out of a record, and the columns a
    read may filter on."""

    name: str
    columns: Callable[[Any], dict[str, Any]]
    filters: tuple[str, ...]


def _target_columns(target: Target) -> dict[str, Any]:
    return {
        "dialogue_id": target.dialogue_id,
        "turn_index": target.turn_index,
        "other_dialogue_id": target.other_dialogue_id,
    }


def _dialogue_columns(d: Dialogue) -> dict[str, Any]:
    return {
        "language": d.language,
        "source": d.source,
        "user_model": d.participants.user,
        "assistant_model": d.participants.assistant,
        "n_turns": len(d.turns),
    }


def _judgment_columns(j: Judgment) -> dict[str, Any]:
    return {
        "protocol": j.protocol,
        "judge_model": j.judge_model,
        "parse_status": j.parse_status,
        **_target_columns(j.target),
    }


def _annotation_columns(a: Annotation) -> dict[str, Any]:
    return {
        "annotator_id": a.annotator_id,
        "complete": a.complete,
        "review_of": a.review_of,
        **_target_columns(a.target),
    }


TABLES: dict[type[StoredRecord], Table] = {
    Dialogue: Table(
        "dialogues",
        _dialogue_columns,
        ("id", "run_id", "language", "source", "user_model", "assistant_model"),
    ),
    Judgment: Table(
        "judgments",
        _judgment_columns,
        ("id", "run_id", "protocol", "judge_model", "dialogue_id", "parse_status"),
    ),
    Annotation: Table(
        "annotations", _annotation_columns, ("id", "run_id", "annotator_id", "dialogue_id")
    ),
    Benchmark: Table("benchmarks", lambda b: {"name": b.name}, ("id", "run_id", "name")),
    Annotator: Table(
        "annotators",
        lambda a: {"name": a.name, "benchmark": a.benchmark, "token_sha256": a.token_sha256},
        ("id", "run_id", "name", "benchmark", "token_sha256"),
    ),
    StageRecord: Table("pipeline_stages", lambda s: {"name": s.name}, ("id", "run_id", "name")),
}


def record_json(record: BaseModel) -> str:
    """The JSON a row keeps of its record (a run's, a usage line's too): canonical, so the same
    record is stored as the same bytes."""
    return canonical_json(record.model_dump(mode="json"))
