"""Where the report goes: a light record, so a pipeline file is checked without loading
pandas and matplotlib."""

from __future__ import annotations

from pathlib import Path

from dialbench.schema import Record


class ReportConfig(Record):
    """Where to write (default: the run directory's `report/`)."""

    output: Path | None = None
