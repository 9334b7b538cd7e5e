"""A calibration as a JSON file: written once by `dialbench calibrate`, read to apply it to
another run. Every problem of a file read names the file and the field."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from dialbench.calibrate.config import Calibration
from dialbench.errors import DialbenchError, InputError
from dialbench.io.text import decode_utf8
from dialbench.io.validation import describe_error


def write_calibration(calibration: Calibration, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(calibration.model_dump(mode="json"), indent=2, ensure_ascii=False)
    path.write_text(text + "\n", encoding="utf-8")


def read_calibration(path: Path) -> Calibration:
    if not path.is_file():
        raise InputError(
            path, "no such calibration file (dialbench calibrate RUN -o FILE makes one)"
        )
    try:
        data = json.loads(decode_utf8(path.read_bytes(), path))
    except json.JSONDecodeError as error:
        raise InputError(path, f"not valid JSON ({error.msg})", line=error.lineno) from None
    try:
        return Calibration.model_validate(data)
    except ValidationError as invalid:
        problems = [
            InputError(path, message, field=field)
            for field, message in map(describe_error, invalid.errors())
        ]
        raise DialbenchError("\n".join(map(str, problems))) from None
