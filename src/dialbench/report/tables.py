"""The report's tables that hold for any protocol, and the pieces protocols build theirs from.
Every rate has its count beside it, and every breakdown has a row for all languages together
(`language` = "all").

With several samples per item, an item's value is the mean over its ok samples, so an item
weighs the same however often it was judged; `sample_spread` shows how much samples differ.
"""

from __future__ import annotations

import pandas as pd

from dialbench.figures.frame import BASE_COLUMNS, ok, with_all_languages
from dialbench.ratings import configuration_summary
from dialbench.schema import ALL_LANGUAGES


def all_languages_last(table: pd.DataFrame) -> pd.DataFrame:
    """Rows in group order, each group's languages first and its "all" row after them."""
    before = list(table.columns[: table.columns.get_loc("language")])
    ordered = table.assign(_all=table["language"].eq(ALL_LANGUAGES)).sort_values(
        [*before, "_all"], kind="stable"
    )
    return ordered.drop(columns="_all").reset_index(drop=True)


def distribution(
    frame: pd.DataFrame, protocol: str, value: str, levels: list[int], by: list[str]
) -> pd.DataFrame:
    """Counts and shares of each level of an integer score, over a protocol's ok judgments
    (samples count)."""
    scored = ok(frame, protocol)
    if scored.empty or value not in scored:
        return pd.DataFrame()
    rows = with_all_languages(scored).assign(level=lambda f: f[value].astype(int))
    counts = rows.groupby([*by, "level"]).size().unstack("level", fill_value=0)
    counts = counts.reindex(columns=levels, fill_value=0).rename_axis(columns=None)
    total = counts.sum(axis=1)
    table = counts.rename(columns=lambda level: f"n_{level}")
    for level in levels:
        table[f"share_{level}"] = counts[level] / total
    table.insert(0, "judgments", total)
    return all_languages_last(table.reset_index())


def usage_by_judge(frame: pd.DataFrame) -> pd.DataFrame:
    """Per protocol, judge and language: judgments, unscored rate, tokens and cost."""
    if frame.empty:
        return pd.DataFrame()
    rows = with_all_languages(frame).assign(unscored=lambda f: f["status"] == "unscored")
    table = (
        rows.groupby(["protocol", "judge", "language"])
        .agg(
            judgments=("status", "size"),
            unscored=("unscored", "sum"),
            prompt_tokens=("prompt_tokens", "sum"),
            completion_tokens=("completion_tokens", "sum"),
            cost_usd=("cost_usd", lambda c: c.sum(min_count=1)),
        )
        .reset_index()
    )
    table.insert(5, "unscored_rate", table["unscored"] / table["judgments"])
    return all_languages_last(table)


def injection_flags_by_judge(frame: pd.DataFrame) -> pd.DataFrame:
    """Per protocol, judge and language where any is flagged: judgments, those whose judged
    text addressed the judge, their share, and how many held each kind."""
    if frame.empty or not frame["injection_kinds"].astype(bool).any():
        return pd.DataFrame()
    rows = with_all_languages(frame)
    kinds = rows["injection_kinds"].str.get_dummies(sep=", ")
    rows = pd.concat([rows, kinds], axis=1).assign(flagged=rows["injection_kinds"].astype(bool))
    table = (
        rows.groupby(["protocol", "judge", "language"])
        .agg(
            judgments=("status", "size"),
            flagged=("flagged", "sum"),
            **{kind: (kind, "sum") for kind in kinds.columns},
        )
        .reset_index()
    )
    table.insert(5, "flagged_share", table["flagged"] / table["judgments"])
    return all_languages_last(table)


def sample_spread(frame: pd.DataFrame) -> pd.DataFrame:
    """For items judged more than once: the mean standard deviation across their samples, and
    how often all samples gave the same value, per protocol, judge and dimension."""
    scored = ok(frame)
    counts = scored.groupby(["protocol", "judge", "item"])["sample_index"].transform("nunique")
    repeated = scored[counts > 1]
    if repeated.empty:
        return pd.DataFrame()
    values = [c for c in repeated.columns if c not in BASE_COLUMNS and repeated[c].notna().any()]
    long = repeated.melt(["protocol", "judge", "item"], values, "dimension", "value")
    long["value"] = pd.to_numeric(long["value"], errors="coerce")
    long = long.dropna(subset="value")
    per_item_values = long.groupby(["protocol", "judge", "dimension", "item"])["value"].agg(
        sd="std", same=lambda v: v.nunique() == 1
    )
    table = per_item_values.groupby(["protocol", "judge", "dimension"]).agg(
        items=("sd", "size"), mean_sd=("sd", "mean"), all_samples_agree=("same", "mean")
    )
    return table.reset_index()


def configurations(frame: pd.DataFrame) -> pd.DataFrame:
    """Each judge configuration behind the figures: the name tables use, what it set (options,
    generation parameters, the first 8 hex digits of each prompt and data file's sha256), and
    how many judgments were made under it."""
    if frame.empty:
        return pd.DataFrame()
    keys = ["protocol", "judge", "configuration"]
    counts = frame.groupby(keys).size().rename("judgments").reset_index()
    settings = frame.drop_duplicates(keys).set_index(keys)["settings"]
    described = [
        configuration_summary(settings[tuple(row)]) for row in counts[keys].itertuples(index=False)
    ]
    return pd.concat([counts, pd.DataFrame(described)], axis=1)
