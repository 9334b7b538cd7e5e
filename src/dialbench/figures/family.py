"""One family of comparisons, corrected together: which correction, at which level, and the
correction itself. Light to import (pandas and statsmodels load when a table is corrected), so
the CLI's options name the corrections without loading the statistics stack."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import pandas as pd

Correction = Literal["holm", "fdr_bh"]
CORRECTIONS: dict[Correction, str] = {
    "holm": "Holm (family-wise error)",
    "fdr_bh": "Benjamini–Hochberg (false discovery rate)",
}
ALPHA = 0.05


def correct(
    table: pd.DataFrame, correction: Correction = "holm", alpha: float = ALPHA
) -> pd.DataFrame:
    """`p_adjusted` and `holds` over every tested row of the table (a p-value): one family."""
    from statsmodels.stats.multitest import multipletests

    tested = table["p_value"].notna()
    table = table.assign(p_adjusted=float("nan"), holds=False)
    if tested.any():
        reject, adjusted, _, _ = multipletests(
            table.loc[tested, "p_value"].to_numpy(dtype=float), alpha, method=correction
        )
        table.loc[tested, "p_adjusted"] = adjusted
        table.loc[tested, "holds"] = reject
    return table
