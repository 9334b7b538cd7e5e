"""The report's tables, computed from the judgment frame. Every rate has its count beside it,
and every breakdown has a row for all languages together (`language` = "all").

With several samples per item, an item's value is the mean over its ok samples, so an item
weighs the same however often it was judged; `sample_spread` shows how much samples differ.
"""

from __future__ import annotations

import pandas as pd

from dialbench.judge.labels import load_issue_labels
from dialbench.report.frames import BASE_COLUMNS

ALL = "all"
ISSUES_PREFIX = "issues."


def _with_all_languages(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows once per language and once more under language "all"."""
    return pd.concat([frame, frame.assign(language=ALL)], ignore_index=True)


def _all_languages_last(table: pd.DataFrame) -> pd.DataFrame:
    """Rows in group order, each group's languages first and its "all" row after them."""
    before = list(table.columns[: table.columns.get_loc("language")])
    ordered = table.assign(_all=table["language"].eq(ALL)).sort_values(
        [*before, "_all"], kind="stable"
    )
    return ordered.drop(columns="_all").reset_index(drop=True)


def _ok(frame: pd.DataFrame, protocol: str) -> pd.DataFrame:
    return frame[(frame["protocol"] == protocol) & (frame["status"] == "ok")]


def _per_item(frame: pd.DataFrame, values: list[str]) -> pd.DataFrame:
    """Mean of each value over an item's samples, keeping judge, chatbot and language."""
    keys = ["judge", "item", "chatbot", "language"]
    return (
        frame[keys + values].astype(dict.fromkeys(values, float)).groupby(keys).mean().reset_index()
    )


def issue_columns(frame: pd.DataFrame) -> list[str]:
    """The issue columns present, in the label file's order (then any others)."""
    present = [c for c in frame.columns if c.startswith(ISSUES_PREFIX)]
    order = [ISSUES_PREFIX + label.key for label in load_issue_labels().issues]
    return [c for c in order if c in present] + sorted(set(present) - set(order))


def usage_by_judge(frame: pd.DataFrame) -> pd.DataFrame:
    """Per protocol, judge and language: judgments, unscored rate, tokens and cost."""
    if frame.empty:
        return pd.DataFrame()
    rows = _with_all_languages(frame).assign(unscored=lambda f: f["status"] == "unscored")
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
    return _all_languages_last(table)


def issue_rates(frame: pd.DataFrame) -> pd.DataFrame:
    """MEDAL Figure 2: per judge, chatbot and language, the share of dialogues with each issue
    and the mean overall score, over the items judged ok."""
    ok = _ok(frame, "issues")
    columns = issue_columns(ok)
    if ok.empty or not columns or "overall" not in ok:
        return pd.DataFrame()
    items = _with_all_languages(_per_item(ok, [*columns, "overall"]))
    table = items.groupby(["judge", "chatbot", "language"]).agg(
        items=("item", "size"), **{c: (c, "mean") for c in [*columns, "overall"]}
    )
    return _all_languages_last(table.reset_index())


def issue_proportions(frame: pd.DataFrame) -> pd.DataFrame:
    """Per judge and language, each issue: dialogues judged, dialogues flagged, and the share."""
    rates = issue_rates(frame)
    if rates.empty:
        return pd.DataFrame()
    ok = _with_all_languages(_per_item(_ok(frame, "issues"), issue_columns(frame)))
    long = ok.melt(["judge", "item", "chatbot", "language"], var_name="issue", value_name="v")
    long = long.sort_values(["judge", "language"], kind="stable")
    table = long.groupby(["judge", "language", "issue"], sort=False).agg(
        dialogues=("v", "size"), flagged=("v", lambda v: int((v >= 0.5).sum())), rate=("v", "mean")
    )
    table = table.reset_index()
    table["issue"] = table["issue"].str.removeprefix(ISSUES_PREFIX)
    return _all_languages_last(table)


def _distribution(
    frame: pd.DataFrame, protocol: str, value: str, levels: list[int], by: list[str]
) -> pd.DataFrame:
    """Counts and shares of each level of an integer score, over ok judgments (samples count)."""
    ok = _ok(frame, protocol)
    if ok.empty or value not in ok:
        return pd.DataFrame()
    rows = _with_all_languages(ok).assign(level=lambda f: f[value].astype(int))
    counts = rows.groupby([*by, "level"]).size().unstack("level", fill_value=0)
    counts = counts.reindex(columns=levels, fill_value=0).rename_axis(columns=None)
    total = counts.sum(axis=1)
    table = counts.rename(columns=lambda level: f"n_{level}")
    for level in levels:
        table[f"share_{level}"] = counts[level] / total
    table.insert(0, "judgments", total)
    return _all_languages_last(table.reset_index())


def overall_distribution(frame: pd.DataFrame) -> pd.DataFrame:
    scale = load_issue_labels().overall.scale
    return _distribution(frame, "issues", "overall", scale, ["judge", "language"])


def holistic_distribution(frame: pd.DataFrame) -> pd.DataFrame:
    return _distribution(frame, "holistic", "quality", [0, 1, 2], ["judge", "chatbot", "language"])


def submetric_means(frame: pd.DataFrame) -> pd.DataFrame:
    """Per judge, chatbot and language: chatbot turns judged and the mean of each submetric."""
    ok = _ok(frame, "submetrics")
    dimensions = [d for d in ("understandability", "sensibleness") if d in ok]
    if ok.empty or not dimensions:
        return pd.DataFrame()
    items = _with_all_languages(_per_item(ok, dimensions))
    table = items.groupby(["judge", "chatbot", "language"]).agg(
        turns=("item", "size"), **{d: (d, "mean") for d in dimensions}
    )
    return _all_languages_last(table.reset_index())


def sample_spread(frame: pd.DataFrame) -> pd.DataFrame:
    """For items judged more than once: the mean standard deviation across their samples, and
    how often all samples gave the same value, per protocol, judge and dimension."""
    ok = frame[frame["status"] == "ok"]
    counts = ok.groupby(["protocol", "judge", "item"])["sample_index"].transform("nunique")
    repeated = ok[counts > 1]
    if repeated.empty:
        return pd.DataFrame()
    values = [c for c in repeated.columns if c not in BASE_COLUMNS and repeated[c].notna().any()]
    long = repeated.melt(["protocol", "judge", "item"], values, "dimension", "value")
    long["value"] = pd.to_numeric(long["value"], errors="coerce")
    long = long.dropna(subset="value")
    per_item = long.groupby(["protocol", "judge", "dimension", "item"])["value"].agg(
        sd="std", same=lambda v: v.nunique() == 1
    )
    table = per_item.groupby(["protocol", "judge", "dimension"]).agg(
        items=("sd", "size"), mean_sd=("sd", "mean"), all_samples_agree=("same", "mean")
    )
    return table.reset_index()


def issue_proportions_wide(proportions: pd.DataFrame) -> pd.DataFrame:
    """For reading: a row per judge and language, a column per issue, cells "25% (2/8)"."""
    cells = proportions.assign(
        cell=[
            f"{rate:.0%} ({flagged}/{n})"
            for rate, flagged, n in proportions[["rate", "flagged", "dialogues"]].itertuples(
                index=False
            )
        ]
    )
    wide = cells.pivot(index=["judge", "language"], columns="issue", values="cell")
    rows = list(dict.fromkeys(zip(proportions["judge"], proportions["language"], strict=True)))
    issues = list(dict.fromkeys(proportions["issue"]))
    return wide.reindex(index=rows, columns=issues).rename_axis(columns=None).reset_index()
