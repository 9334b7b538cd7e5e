"""Writing a meta-evaluation out: one CSV per table, a markdown report, JSON, and PNG plots."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from dialbench.metaeval.evaluate import MetaEvalTables
from dialbench.metaeval.pvalues import p_value_text
from dialbench.metaeval.references import HUMAN_CEILING, is_ceiling
from dialbench.plotting import file_stem, plot_label, save_png
from dialbench.safe_text import markdown_frame, markdown_text, spreadsheet_frame

TITLES = {
    "agreement": "Agreement between human annotators",
    "kappa_pairs": "Cohen's kappa of each annotator pair",
    "detection": "Detection against each annotator (averaged)",
    "mcnemar": "McNemar: judge vs. annotator, scored against a second annotator",
    "classification": "Multi-class labels against each annotator (averaged)",
    "correlation": "Correlation with the mean human score",
    "unscored": "Unscored outputs per judge",
    "distribution": "Value distributions: humans pooled vs. each judge",
    "consistency": "Position consistency of pairwise judges",
}


def tables(report: MetaEvalTables) -> dict[str, pd.DataFrame]:
    return {
        name: pd.DataFrame([row.model_dump() for row in getattr(report, name)])
        for name in TITLES
        if getattr(report, name)
    }


def _error(part: pd.DataFrame, value: str, bounds: tuple[str, str] | None) -> np.ndarray | None:
    """The distance from each figure down to its interval's low end and up to its high end."""
    if bounds is None:
        return None
    figure = part[value].astype(float).to_numpy()
    low, high = (part[b].astype(float).to_numpy() for b in bounds)
    return np.nan_to_num(np.clip(np.vstack([figure - low, high - figure]), 0, None))


def _bar_groups(
    ax: Axes,
    frame: pd.DataFrame,
    x: str,
    value: str,
    raters: list[str],
    bounds: tuple[str, str] | None = None,
) -> None:
    """Grouped bars of `value` per `x`, one bar per judge labelled with its item count; an
    undefined figure is written as n/a, never drawn as zero; the human ceiling as black marks;
    each figure's 95% interval (the columns `bounds`) as a whisker."""
    positions = {key: i for i, key in enumerate(dict.fromkeys(frame[x]))}
    judges = [r for r in raters if not is_ceiling(r)]
    width = 0.8 / max(len(judges), 1)
    for k, judge in enumerate(judges):
        part = frame[frame["rater"] == judge]
        offsets = [positions[v] - 0.4 + width * (k + 0.5) for v in part[x]]
        heights = part[value].astype(float)
        bars = ax.bar(
            offsets,
            heights.fillna(0),
            width,
            yerr=_error(part, value, bounds),
            capsize=3,
            label=plot_label(judge),
        )
        for bar, height, n in zip(bars, heights, part["n_items"], strict=True):
            text = f"n={n}" if np.isfinite(height) else f"n/a\nn={n}"
            top = height if np.isfinite(height) else 0.0
            ax.annotate(
                text,
                (bar.get_x() + bar.get_width() / 2, max(top, 0.0)),
                ha="center",
                va="bottom",
                fontsize=7,
            )
    ceiling = frame[frame["rater"].map(is_ceiling)]
    if not ceiling.empty:
        ax.errorbar(
            [positions[v] for v in ceiling[x]],
            ceiling[value].astype(float),
            yerr=_error(ceiling, value, bounds),
            fmt="D",
            color="black",
            capsize=3,
            zorder=3,
            label=HUMAN_CEILING,
        )
    ax.set_xticks(
        range(len(positions)), [plot_label(str(p)) for p in positions], rotation=30, ha="right"
    )
    shown = [value, bounds[0]] if bounds else [value]
    lowest = float(np.nanmin(frame[shown].astype(float).to_numpy(), initial=0.0))
    ax.set_ylim(lowest - 0.05, 1.12)
    ax.grid(axis="y", alpha=0.3)


def plot_detection(detection: pd.DataFrame, folder: Path) -> list[Path]:
    """Per language: F1+ and F1- per label, a bar per judge, the human ceiling marked."""
    paths = []
    for language, part in detection.groupby("language", sort=True):
        raters = list(dict.fromkeys(part["rater"]))
        if all(map(is_ceiling, raters)):
            continue
        canvas, axes = plt.subplots(
            2, 1, figsize=(max(6, 1.2 * part["dimension"].nunique()), 7), sharex=True
        )
        for ax, column, title in zip(
            axes,
            ("f1_positive", "f1_negative"),
            ("F1+ (positive: the issue, the label)", "F1- (negative)"),
            strict=True,
        ):
            bounds = (f"{column}_low", f"{column}_high") if f"{column}_low" in part else None
            _bar_groups(ax, part, "dimension", column, raters, bounds)
            ax.set_ylabel(title)
        axes[0].legend(fontsize=8, loc="best")
        canvas.suptitle(
            f"Detection vs. humans — {plot_label(str(language))} (whiskers: 95% intervals)"
        )
        paths.append(save_png(canvas, folder / f"detection_{file_stem(str(language))}.png"))
    return paths


def plot_correlation(correlation: pd.DataFrame, folder: Path) -> list[Path]:
    """Per scored dimension: Spearman per language, a bar per judge, the human ceiling marked."""
    paths = []
    spearman = correlation[correlation["method"] == "spearman"]
    for dimension, part in spearman.groupby("dimension", sort=True):
        raters = list(dict.fromkeys(part["rater"]))
        if all(map(is_ceiling, raters)):
            continue
        canvas, ax = plt.subplots(figsize=(max(6, 1.2 * part["language"].nunique()), 4))
        _bar_groups(ax, part, "language", "r", raters, ("ci_low", "ci_high"))
        ax.set_ylabel("Spearman with mean human score\n(whiskers: 95% over dialogues)")
        ax.legend(fontsize=8, loc="best")
        ax.set_title(f"{plot_label(str(dimension))}: correlation with humans per language")
        paths.append(save_png(canvas, folder / f"correlation_{file_stem(str(dimension))}.png"))
    return paths


def _markdown(frame: pd.DataFrame) -> str:
    """A markdown table, names escaped; an undefined figure reads as a dash, never as nan."""
    cells = markdown_frame(frame).astype(object).where(frame.notna().to_numpy(), None)
    as_text = []  # columns tabulate must not parse back into numbers and round
    if "p_value" in cells:
        cells["p_value"] = [None if pd.isna(p) else p_value_text(p) for p in cells["p_value"]]
        as_text.append(list(cells.columns).index("p_value"))
    return str(
        cells.to_markdown(
            index=False, floatfmt=".3f", missingval="–", disable_numparse=as_text or False
        )
    )


def write_metaeval_report(report: MetaEvalTables, folder: Path) -> list[Path]:
    """Write every table (CSV), report.md with all tables and plots, and report.json."""
    folder.mkdir(parents=True, exist_ok=True)
    frames = tables(report)
    written = []
    for name, frame in frames.items():
        spreadsheet_frame(frame).to_csv(folder / f"{name}.csv", index=False)
        written.append(folder / f"{name}.csv")
    plots = []
    if "detection" in frames:
        plots += plot_detection(frames["detection"], folder)
    if "correlation" in frames:
        plots += plot_correlation(frames["correlation"], folder)
    lines = ["# Meta-evaluation", ""]
    lines += [f"- {markdown_text(note)}" for note in report.notes] + ([""] if report.notes else [])
    for name, frame in frames.items():
        lines += [f"## {TITLES[name]}", "", _markdown(frame), ""]
        lines += [f"![{p.stem}]({p.name})" for p in plots if p.stem.startswith(name)] + [""]
    (folder / "report.md").write_text("\n".join(lines), encoding="utf-8")
    (folder / "report.json").write_text(report.model_dump_json(indent=1), encoding="utf-8")
    return [*written, *plots, folder / "report.md", folder / "report.json"]
