"""Judgments as one flat table: a row per judgment, placed by item, chatbot, language and seed
unit (the units given: `RunReads.frame` passes its `seed_units`, read once for every figure) as
`ratings.py` places them for the meta-evaluation, the result flattened to dotted columns
(`issues.repetitive`), and the judge named with its configuration where it had several
(`settings` holds the configuration itself, or None for judgments from before they existed),
and the kinds of text addressed to the judge found in what it judged (`injection_kinds`).
With the pieces every table is built from: the ok judgments, an item's mean over its samples,
and every row once more under language "all"."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from dialbench.ratings import configuration_of, flatten, placed_judgments
from dialbench.schema import ALL_LANGUAGES
from dialbench.store import RunStore

BASE_COLUMNS = [
    "protocol",
    "judge",
    "judge_model",
    "configuration",
    "settings",
    "item",
    "dialogue_id",
    "turn_index",
    "sample_index",
    "chatbot",
    "language",
    "unit",
    "status",
    "prompt_tokens",
    "completion_tokens",
    "cost_usd",
    "injection_kinds",
]


def judgment_frame(store: RunStore, units: Mapping[str, str]) -> pd.DataFrame:
    rows = [
        {
            "protocol": j.protocol,
            "judge": placed.rater,
            "judge_model": j.judge_model,
            "configuration": configuration_of(j),
            "settings": j.configuration,
            "item": placed.item,
            "dialogue_id": j.target.dialogue_id,
            "turn_index": j.target.turn_index,
            "sample_index": j.sample_index,
            "chatbot": placed.chatbot,
            "language": placed.language,
            "unit": units.get(j.target.dialogue_id, f"dialogue:{j.target.dialogue_id}"),
            "status": j.parse_status,
            "prompt_tokens": j.usage.prompt_tokens,
            "completion_tokens": j.usage.completion_tokens,
            "cost_usd": j.usage.cost_usd,
            "injection_kinds": ", ".join(sorted({flag.kind for flag in j.injection_flags})),
            **dict(flatten(j.result or {})),
        }
        for j, placed in placed_judgments(store)
    ]
    frame = pd.DataFrame(rows)
    return frame if not frame.empty else pd.DataFrame(columns=BASE_COLUMNS)


def with_all_languages(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows once per language and once more under language "all"."""
    return pd.concat([frame, frame.assign(language=ALL_LANGUAGES)], ignore_index=True)


def ok(frame: pd.DataFrame, protocol: str | None = None) -> pd.DataFrame:
    """The judgments parsed ok (of one protocol, when given)."""
    scored = frame[frame["status"] == "ok"]
    return scored if protocol is None else scored[scored["protocol"] == protocol]


def per_item(frame: pd.DataFrame, values: list[str]) -> pd.DataFrame:
    """Mean of each value over an item's samples, keeping judge, chatbot, language and unit."""
    keys = ["judge", "item", "chatbot", "language", "unit"]
    return (
        frame[keys + values].astype(dict.fromkeys(values, float)).groupby(keys).mean().reset_index()
    )


def frame_records(frame: pd.DataFrame) -> list[dict[str, object]]:
    """A table's rows as dicts for records: a missing value (NaN, a figure without an
    interval) is None."""
    return [
        {str(key): None if pd.isna(value) else value for key, value in row.items()}
        for row in frame.to_dict("records")
    ]
