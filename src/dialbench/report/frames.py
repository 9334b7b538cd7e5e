"""Judgments as one flat table: a row per judgment, placed by item, chatbot and language as
`ratings.py` places them for the meta-evaluation, the result flattened to dotted columns
(`issues.repetitive`), and the judge named with its configuration where it had several
(`settings` holds the configuration itself, or None for judgments from before they existed)."""

from __future__ import annotations

import pandas as pd

from dialbench.ratings import configuration_of, flatten, placed_judgments
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
    "status",
    "prompt_tokens",
    "completion_tokens",
    "cost_usd",
]


def judgment_frame(store: RunStore) -> pd.DataFrame:
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
            "status": j.parse_status,
            "prompt_tokens": j.usage.prompt_tokens,
            "completion_tokens": j.usage.completion_tokens,
            "cost_usd": j.usage.cost_usd,
            **dict(flatten(j.result or {})),
        }
        for j, placed in placed_judgments(store)
    ]
    frame = pd.DataFrame(rows)
    return frame if not frame.empty else pd.DataFrame(columns=BASE_COLUMNS)
