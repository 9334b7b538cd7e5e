"""Each judging protocol's own part of the report, by protocol name, where it shows more than
the section of its declared figures (`report/figures_section.py`): a function
`sections(frame, context) -> list[Section]` given that protocol's judgments (`frame`) and the
report (`context`: its folder, the run's store for what judgments do not hold, such as dialogue
lengths, ChatSEEDs and opponents, and what is computed once per report, such as the protocol's
chatbot figures and the self-chats). A protocol with no entry still gets its figures' section
and the sections every protocol shares (`report/common_sections.py`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from dialbench.registry import Registry

if TYPE_CHECKING:
    import pandas as pd

    from dialbench.report.context import ReportContext
    from dialbench.report.section import Section

SectionsBuilder = Callable[["pd.DataFrame", "ReportContext"], "list[Section]"]

PROTOCOL_SECTIONS: Registry[SectionsBuilder] = Registry(
    "report sections of protocol",
    {
        "issues": "dialbench.report.protocols.issues:sections",
        "holistic": "dialbench.report.protocols.holistic:sections",
        "unieval": "dialbench.report.protocols.unieval:sections",
        "arena": "dialbench.report.protocols.arena:sections",
        "gteval": "dialbench.report.protocols.gteval:sections",
        "replay": "dialbench.report.protocols.replay:sections",
    },
    group="report_sections",
)
