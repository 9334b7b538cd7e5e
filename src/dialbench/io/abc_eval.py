"""The ABC-Eval turn-level behaviour format, as published with GPT-ABCEval: a JSON object
`{dialogue_id: [turn, ...]}` where each turn has `"behaviors": {name: {"human": [a, b], "gpt": x}}`;
`human` lists the annotators' values, every other key is a judge. Read as ratings, one long-format
row per value (`io/long_format.py`), with item ids `dialogue_id#turn_index`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dialbench.errors import InputError, InputErrors
from dialbench.io.file_format import FileFormat, Item, ReadRequest
from dialbench.io.jsonl import json_value_problems, strict_json_loads
from dialbench.io.text import decode_utf8


def _behaviour_rows(where: str, item_id: str, behaviours: Any) -> Iterator[Item]:
    if not isinstance(behaviours, dict):
        yield None, InputError(where, "expected an object of behaviours", field="behaviors")
        return
    for name, values in behaviours.items():
        if not isinstance(values, dict) or not isinstance(values.get("human", []), list):
            message = 'expected {"human": [values], "<judge>": value}'
            yield None, InputError(where, message, field=f"behaviors.{name}")
            continue
        for rater, value in values.items():
            raters = (
                [(f"human-{i + 1}", "human", v) for i, v in enumerate(value)]
                if rater == "human"
                else [(rater, "judge", value)]
            )
            for rater_name, kind, raw in raters:
                row = {"item_id": item_id, "annotator_or_judge": rater_name, "kind": kind}
                yield None, {**row, "dimension": name, "value": raw}


def read_behaviours(path: Path, request: ReadRequest) -> Iterator[Item]:
    """Long-format rows, one per value; problems name the dialogue and turn."""
    try:
        data = strict_json_loads(decode_utf8(path.read_bytes(), path))
    except json.JSONDecodeError as bad:
        raise InputError(
            path, f"invalid JSON: {bad.msg} (column {bad.colno})", line=bad.lineno
        ) from None
    if not isinstance(data, dict):
        raise InputError(path, "expected an object of {dialogue_id: [turns]}")
    bad_values = [InputError(path, m, field=f) for f, m in json_value_problems(data)]
    if bad_values:
        raise InputErrors(bad_values)
    found_any = False
    for dialogue_id, turns in data.items():
        if not isinstance(turns, list):
            found_any = True
            yield None, InputError(path, "expected a list of turns", field=dialogue_id)
            continue
        for index, turn in enumerate(turns):
            where = f"{path} (dialogue {dialogue_id}, turn {index})"
            behaviours = turn.get("behaviors") if isinstance(turn, dict) else None
            for item in _behaviour_rows(where, f"{dialogue_id}#{index}", behaviours):
                found_any = True
                yield item
    if not found_any:
        raise InputError(path, "no behaviour ratings found")


ABC_EVAL = FileFormat(
    "abc-eval",
    "ABC-Eval behaviour ratings",
    holds=("ratings",),
    read=read_behaviours,
    suffixes=(".json",),
)
