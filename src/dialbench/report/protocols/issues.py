"""The MEDAL issues part of the report: the chatbot x language heatmap (Figure 2), issue
proportions per language (Figure 6), and the overall-score distribution, from the judgment
frame of this protocol's judgments."""

from __future__ import annotations

import html
from collections.abc import Callable, Hashable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dialbench.figures.frame import ok, per_item, with_all_languages
from dialbench.issue_labels import ISSUES_PREFIX, load_issue_labels
from dialbench.judge.protocols.issues import IssuesProtocol
from dialbench.plotting import file_stem, plot_label, save_png
from dialbench.report.chatbot_figures import (
    figure_table,
    interval_cell,
    interval_cells,
    protocol_figures,
)
from dialbench.report.context import ReportContext
from dialbench.report.section import Section, distribution_plots, relative, write_table
from dialbench.report.tables import all_languages_last, distribution
from dialbench.schema import ALL_LANGUAGES


def issue_columns(frame: pd.DataFrame) -> list[str]:
    """The issue columns present, in the label file's order (then any others)."""
    present = [c for c in frame.columns if c.startswith(ISSUES_PREFIX)]
    order = [ISSUES_PREFIX + label.key for label in load_issue_labels().issues]
    return [c for c in order if c in present] + sorted(set(present) - set(order))


def issue_rates(frame: pd.DataFrame, context: ReportContext) -> pd.DataFrame:
    """MEDAL Figure 2: per judge, chatbot and language, the share of dialogues with each issue
    and the mean overall score over the items judged ok, each with its interval over seeds."""
    scored = ok(frame, IssuesProtocol.name)
    columns = issue_columns(scored)
    if scored.empty or not columns or "overall" not in scored:
        return pd.DataFrame()
    figures = protocol_figures(context, IssuesProtocol.name)
    return figure_table(figures, {column: column for column in [*columns, "overall"]})


def rate_columns(rates: pd.DataFrame) -> list[str]:
    """The issue columns of the rates table: those with an interval beside them."""
    return [c for c in issue_columns(rates) if f"{c}_low" in rates]


def _dialogues_link(text: str, **filters: str) -> str:
    """A cell linking to the dialogues behind it in `dialbench serve`'s list, which serves this
    report under /report/ (opened as a file, the report reads the same; the link has no target)."""
    query = urlencode(
        {key: value for key, value in filters.items() if value not in ("", ALL_LANGUAGES)}
    )
    return f'<a href="../dialogues?{html.escape(query)}">{html.escape(text)}</a>'


def linked_rates_html(rates: pd.DataFrame) -> str:
    """The issue-rates table as HTML whose counts, rates and scores each link to their
    dialogues: "lacks_empathy 44% [30–58] in zh" is one click from the dialogues behind it."""
    columns = rate_columns(rates)
    rows = []
    for row in rates.to_dict("records"):
        where = {
            "protocol": IssuesProtocol.name,
            "judge": str(row["judge"]),
            "chatbot": str(row["chatbot"]),
            "language": str(row["language"]),
        }
        cells = {key: html.escape(str(row[key])) for key in ("judge", "chatbot", "language")}
        cells["items"] = _dialogues_link(str(row["items"]), **where, status="ok")
        cells["seeds"] = str(row["seeds"])
        for column in [*columns, "overall"]:
            cell = interval_cell(
                row[column], row[f"{column}_low"], row[f"{column}_high"], rate=column != "overall"
            )
            issue = column.removeprefix(ISSUES_PREFIX)
            link = {"issue": issue} if column != "overall" else {}
            cells[html.escape(issue)] = _dialogues_link(cell, **where, **link)
        cells["note"] = html.escape(str(row["note"]))
        rows.append(cells)
    return pd.DataFrame(rows).to_html(index=False, escape=False, na_rep="-")


def shown_rates(rates: pd.DataFrame) -> pd.DataFrame:
    """The issue-rates table for reading: a cell per figure with its interval."""
    shown = interval_cells(rates, rates=rate_columns(rates), scores=["overall"])
    return shown.rename(columns=lambda c: str(c).removeprefix(ISSUES_PREFIX))


def issue_proportions(frame: pd.DataFrame) -> pd.DataFrame:
    """Per judge and language, each issue: dialogues judged, dialogues flagged, and the share."""
    scored = ok(frame, IssuesProtocol.name)
    columns = issue_columns(scored)
    if scored.empty or not columns:
        return pd.DataFrame()
    items = with_all_languages(per_item(scored, columns))
    long = items.melt(
        ["judge", "item", "chatbot", "language", "unit"], var_name="issue", value_name="v"
    )
    long = long.sort_values(["judge", "language"], kind="stable")
    proportions = long.groupby(["judge", "language", "issue"], sort=False).agg(
        dialogues=("v", "size"), flagged=("v", lambda v: int((v >= 0.5).sum())), rate=("v", "mean")
    )
    proportions = proportions.reset_index()
    proportions["issue"] = proportions["issue"].str.removeprefix(ISSUES_PREFIX)
    return all_languages_last(proportions)


def overall_distribution(frame: pd.DataFrame) -> pd.DataFrame:
    scale = load_issue_labels().overall.scale
    return distribution(frame, IssuesProtocol.name, "overall", scale, ["judge", "language"])


def _share(row: Mapping[Hashable, Any]) -> str:
    return f"{row['rate']:.0%} ({row['flagged']}/{row['dialogues']})"


def issue_proportions_wide(
    proportions: pd.DataFrame, cell: Callable[[Mapping[Hashable, Any]], str] = _share
) -> pd.DataFrame:
    """For reading: a row per judge and language, a column per issue, cells "25% (2/8)"."""
    cells = proportions.assign(cell=[cell(row) for row in proportions.to_dict("records")])
    wide = cells.pivot(index=["judge", "language"], columns="issue", values="cell")
    rows = list(dict.fromkeys(zip(proportions["judge"], proportions["language"], strict=True)))
    issues = list(dict.fromkeys(proportions["issue"]))
    return wide.reindex(index=rows, columns=issues).rename_axis(columns=None).reset_index()


def linked_proportions_html(proportions: pd.DataFrame) -> str:
    """The wide proportions table as HTML, each "25% (2/8)" linking to the dialogues flagged."""

    def linked(row: Mapping[Hashable, Any]) -> str:
        where = {key: str(row[key]) for key in ("judge", "language", "issue")}
        return _dialogues_link(_share(row), protocol=IssuesProtocol.name, **where)

    wide = issue_proportions_wide(proportions, linked)
    for column in ("judge", "language"):
        wide[column] = wide[column].map(lambda value: html.escape(str(value)))
    wide.columns = [html.escape(str(column)) for column in wide.columns]
    return wide.to_html(index=False, escape=False, na_rep="-")


def issue_heatmaps(rates: pd.DataFrame, folder: Path) -> list[Path]:
    """MEDAL Figure 2, one per judge: rows chatbot x language, columns the issue rates (red) and
    the mean overall score (green, its own scale); each row names its dialogues and seeds."""
    paths = []
    for judge, part in rates[rates["language"] != ALL_LANGUAGES].groupby("judge", sort=True):
        part = part.sort_values(["chatbot", "language"])
        issues = rate_columns(part)
        labels = [
            f"{plot_label(c)} · {lang} (n={n}, {seeds} seed{'s' * (seeds != 1)})"
            for c, lang, n, seeds in part[["chatbot", "language", "items", "seeds"]].itertuples(
                index=False
            )
        ]
        height = 2.6 + 0.4 * len(part)
        canvas, (left, right) = plt.subplots(
            1,
            2,
            figsize=(2.2 + 0.9 * len(issues) + 1.2, height),
            gridspec_kw={"width_ratios": [len(issues), 1]},
        )
        values = part[issues].to_numpy(dtype=float)
        left.imshow(values, cmap="Reds", vmin=0, vmax=1, aspect="auto")
        for (row, col), value in np.ndenumerate(values):
            colour = "white" if value > 0.6 else "black"
            left.text(col, row, f"{value:.0%}", ha="center", va="center", fontsize=8, color=colour)
        left.set_xticks(
            range(len(issues)),
            [i.removeprefix(ISSUES_PREFIX) for i in issues],
            rotation=40,
            ha="right",
        )
        left.set_yticks(range(len(part)), labels)
        left.set_title("dialogues with the issue")
        overall = part[["overall"]].to_numpy(dtype=float)
        right.imshow(overall, cmap="Greens", vmin=1, vmax=5, aspect="auto")
        for row, value in enumerate(overall[:, 0]):
            colour = "white" if value > 3.5 else "black"
            right.text(0, row, f"{value:.2f}", ha="center", va="center", fontsize=8, color=colour)
        right.set_xticks([0], ["overall"])
        right.set_yticks([])
        right.set_title("mean 1-5")
        canvas.suptitle(
            f"Issues per chatbot and language — judge {plot_label(str(judge))}", fontsize=10
        )
        paths.append(save_png(canvas, folder / f"issues_heatmap_{file_stem(str(judge))}.png"))
    return paths


def issue_proportion_bars(proportions: pd.DataFrame, folder: Path) -> list[Path]:
    """MEDAL Figure 6, per judge: the share of dialogues with each issue, a bar per language."""
    paths = []
    for judge, part in proportions.groupby("judge", sort=True):
        issues = list(dict.fromkeys(part["issue"]))
        languages = [*sorted(set(part["language"]) - {ALL_LANGUAGES}), ALL_LANGUAGES]
        width = 0.8 / len(languages)
        canvas, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(issues) * len(languages) / 3), 4))
        for k, language in enumerate(languages):
            rows = part[part["language"] == language].set_index("issue").reindex(issues)
            xs = np.arange(len(issues)) - 0.4 + width * (k + 0.5)
            n = int(rows["dialogues"].max())
            ax.bar(xs, rows["rate"].fillna(0), width, label=f"{language} (n={n})")
        if not part["flagged"].any():
            ax.text(
                0.5,
                0.5,
                "no dialogue flagged with any issue",
                ha="center",
                transform=ax.transAxes,
                color="grey",
            )
        ax.set_xticks(range(len(issues)), issues, rotation=30, ha="right")
        ax.set_ylabel("share of dialogues")
        ax.set_ylim(0, 1)
        ax.legend(fontsize=7, ncol=2)
        ax.set_title(
            f"Issue proportions per language — judge {plot_label(str(judge))}", fontsize=10
        )
        paths.append(save_png(canvas, folder / f"issue_proportions_{file_stem(str(judge))}.png"))
    return paths


def sections(frame: pd.DataFrame, context: ReportContext) -> list[Section]:
    folder = context.folder
    rates = issue_rates(frame, context)
    if rates.empty:
        return []
    proportions = issue_proportions(frame)
    overall = overall_distribution(frame)
    scale = load_issue_labels().overall.scale
    return [
        Section(
            key="issues",
            title="Issues and overall score per chatbot and language",
            note="MEDAL's multidimensional evaluation: the share of dialogues a judge flagged "
            "with each issue, and the mean overall score (1-5), each with its 95% interval "
            "[low–high]; items = dialogues judged ok, seeds = the seeds they grew from, and the "
            "note marks rows with too few seeds to trust the interval. Served by "
            "`dialbench serve`, each figure of the table links to its dialogues.",
            plots=relative(folder, issue_heatmaps(rates, folder / "plots")),
            tables=[
                write_table(
                    folder,
                    "issue_rates",
                    "Issue rates and mean overall",
                    rates,
                    shown_rates(rates),
                ).model_copy(update={"html": linked_rates_html(rates)})
            ],
        ),
        Section(
            key="issue-proportions",
            title="Issue proportions per language",
            plots=relative(folder, issue_proportion_bars(proportions, folder / "plots")),
            tables=[
                write_table(
                    folder,
                    "issue_proportions",
                    "Dialogues flagged: share (flagged / judged)",
                    proportions,
                    issue_proportions_wide(proportions),
                ).model_copy(update={"html": linked_proportions_html(proportions)})
            ],
        ),
        Section(
            key="overall",
            title="Overall score distribution per language",
            plots=distribution_plots(
                folder, overall, ["language"], scale, "Overall score per language", "overall"
            ),
            tables=[write_table(folder, "overall_distribution", "Overall scores", overall)],
        ),
    ]
