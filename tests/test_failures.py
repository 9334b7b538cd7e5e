"""Failed work counted by reason: the closing line of long commands."""

from __future__ import annotations

from dialbench.failures import NO_REASON, REASON_CHARS, Failures


def test_failures_count_by_the_first_line_and_show_the_most_frequent_reasons() -> None:
    failures = Failures(what="judgments")
    for error in ["HTTP 500: a\nid 1", "HTTP 500: a\nid 2", "x" * 300, None, "b", "c"]:
        failures.add(error)
    assert failures.count == 6
    assert failures.by_reason["HTTP 500: a"] == 2
    assert len(max(failures.by_reason, key=len)) == REASON_CHARS
    line = failures.line(of=10)
    assert line.startswith("6 of 10 judgments failed: 2 × HTTP 500: a; 1 × ")
    assert line.endswith("; 2 more reason(s)")
    assert NO_REASON in failures.by_reason
