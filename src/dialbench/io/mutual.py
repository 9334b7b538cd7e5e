"""BotChat's ChatSEEDs: the MuTual test dialogues in an xlsx sheet (`index`, `conv-GT`, `nround`).

Each row becomes a human-human dialogue whose first two utterances are its ChatSEED; the whole
dialogue is the ground truth that generated continuations are compared against.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dialbench.errors import InputError
from dialbench.io.file_format import FileFormat, Item, ReadRequest

SEED_UTTERANCES = 2
COLUMNS = ("index", "conv-GT")


def read_mutual_xlsx(path: Path, request: ReadRequest) -> Iterator[Item]:
    """Yield one raw dialogue per sheet row; `line` is the spreadsheet row number."""
    import openpyxl  # imported here: it costs a fifth of a second on every CLI start

    try:
        workbook = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except (zipfile.BadZipFile, OSError, KeyError, ValueError) as bad:
        raise InputError(path, f"not a readable .xlsx workbook ({bad})") from None
    try:
        rows = workbook.worksheets[0].iter_rows(values_only=True)
        header = [str(cell) if cell is not None else "" for cell in next(rows, ())]
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            found = ", ".join(h for h in header if h) or "none"
            raise InputError(path, f"missing column(s) {missing} (found: {found})", line=1)
        at = {name: header.index(name) for name in header}
        for row_no, row in enumerate(rows, start=2):
            if all(cell is None for cell in row):
                continue
            yield row_no, _dialogue(path, row_no, row, at)
    finally:
        workbook.close()


def _dialogue(
    path: Path, row_no: int, row: tuple[object, ...], at: dict[str, int]
) -> dict[str, Any] | InputError:
    index = row[at["index"]]
    try:
        utterances = json.loads(str(row[at["conv-GT"]]))
    except json.JSONDecodeError as bad:
        return InputError(path, f"invalid JSON: {bad.msg}", line=row_no, field="conv-GT")
    if not isinstance(utterances, list) or not all(isinstance(u, str) for u in utterances):
        return InputError(path, "expected a JSON list of utterances", line=row_no, field="conv-GT")
    if len(utterances) < SEED_UTTERANCES:
        message = f"{len(utterances)} utterance(s); a ChatSEED needs {SEED_UTTERANCES}"
        return InputError(path, message, line=row_no, field="conv-GT")
    metadata: dict[str, Any] = {"mutual_index": index}
    if "nround" in at:
        metadata["nround"] = row[at["nround"]]
    return {
        "id": f"mutual:{index}",
        "language": "en",
        "source": "mutual",
        "seed": {"language": "en", "chatseed": utterances[:SEED_UTTERANCES]},
        "turns": [
            {"role": "user" if i % 2 == 0 else "assistant", "text": text}
            for i, text in enumerate(utterances)
        ],
        "metadata": metadata,
    }


MUTUAL_XLSX = FileFormat(
    "mutual-xlsx",
    "BotChat's MuTual ChatSEEDs sheet",
    holds=("dialogues",),
    read=read_mutual_xlsx,
    suffixes=(".xlsx",),
)
