"""The chatbot-evaluation report: tables, plots and one static HTML page from a run store.

from dialbench.report import ReportConfig, report
report(ReportConfig(), "runs/sim")      # runs/sim/report/index.html, report.md, tables, plots
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dialbench.report.config import ReportConfig

if TYPE_CHECKING:
    from dialbench.report.writer import ReportOutput, report

__all__ = ["ReportConfig", "ReportOutput", "report"]


def __getattr__(name: str) -> Any:
    """`report` and `ReportOutput` bring pandas and matplotlib: loaded when first asked for, so a
    pipeline file that names a report stage is read without them."""
    if name in ("report", "ReportOutput"):
        from dialbench.report import writer

        return getattr(writer, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
