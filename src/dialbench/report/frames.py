"""Judgments as one flat table: a row per judgment, with its dialogue's chatbot and language and
the result flattened to dotted columns (`issues.repetitive`), as the meta-evaluation reads them."""

from __future__ import annotations

import pandas as pd

from dialbench.metaeval.ratings import UNKNOWN_LANGUAGE, flatten, item_key
from dialbench.schema import Dialogue, Judgment
from dialbench.store import RunStore
from dialbench.summary import HUMAN

BASE_COLUMNS = [
    "protocol",
    "judge",
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
    placed = {
        d.id: (d.participants.assistant or HUMAN, d.language) for d in store.records(Dialogue)
    }
    rows = []
    for j in store.records(Judgment):
        chatbot, language = placed.get(j.target.dialogue_id, (HUMAN, UNKNOWN_LANGUAGE))
        rows.append(
            {
                "protocol": j.protocol,
                "judge": j.judge_model,
                "item": item_key(j.target),
                "dialogue_id": j.target.dialogue_id,
                "turn_index": j.target.turn_index,
                "sample_index": j.sample_index,
                "chatbot": chatbot,
                "language": language,
                "status": j.parse_status,
                "prompt_tokens": j.usage.prompt_tokens,
                "completion_tokens": j.usage.completion_tokens,
                "cost_usd": j.usage.cost_usd,
                **dict(flatten(j.result or {})),
            }
        )
    frame = pd.DataFrame(rows)
    return frame if not frame.empty else pd.DataFrame(columns=BASE_COLUMNS)
