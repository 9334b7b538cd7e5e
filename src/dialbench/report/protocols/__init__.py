"""Each judging protocol's own part of the report, by protocol name: a function
`sections(frame, folder, store) -> list[Section]` given that protocol's judgments (`frame`) and the
run (`store`, for what judgments do not hold: dialogue lengths, ChatSEEDs, opponents). A protocol
with no entry still gets the sections every protocol shares (`report/common_sections.py`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from dialbench.registry import Registry

if TYPE_CHECKING:
    import pandas as pd

    from dialbench.report.section import Section
    from dialbench.store import RunStore

SectionsBuilder = Callable[["pd.DataFrame", Path, "RunStore"], "list[Section]"]

PROTOCOL_SECTIONS: Registry[SectionsBuilder] = Registry(
    "report sections of protocol",
    {
        "issues": "dialbench.report.protocols.issues:sections",
        "holistic": "dialbench.report.protocols.holistic:sections",
        "submetrics": "dialbench.report.protocols.submetrics:sections",
        "unieval": "dialbench.report.protocols.unieval:sections",
        "arena": "dialbench.report.protocols.arena:sections",
        "gteval": "dialbench.report.protocols.gteval:sections",
    },
    group="report_sections",
)
