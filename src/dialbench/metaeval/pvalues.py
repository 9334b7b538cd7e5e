"""How a p-value reads: one rule for the terminal and report.md, free of the statistics stack."""

from __future__ import annotations


def p_value_text(p: float) -> str:
    """Three decimals, or scientific notation below 0.001, where 0.000 would read as impossible."""
    return f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"
