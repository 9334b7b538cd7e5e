"""The chatbot-evaluation report: tables, plots and one static HTML page from a run store.

from dialbench.report import ReportConfig, report
report(ReportConfig(), "runs/sim")      # runs/sim/report/index.html, report.md, tables, plots
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dialbench.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from dialbench.report.config import ReportConfig
    from dialbench.report.writer import ReportResult, report

__all__ = ["ReportConfig", "ReportResult", "report"]

__getattr__ = lazy_exports(
    __name__, {".config": ["ReportConfig"], ".writer": ["ReportResult", "report"]}
)
