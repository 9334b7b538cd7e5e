"""The chatbot-evaluation report: tables, plots and one static HTML page from a run store."""

from dialbench.report.writer import ReportConfig, ReportOutput, report

__all__ = ["ReportConfig", "ReportOutput", "report"]
