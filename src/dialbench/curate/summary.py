"""Before and after curation, per language: how many dialogues have each issue (and none), each
overall score, each chatbot. As a CSV, a markdown page and one PNG, so the balance is seen."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dialbench.curate.selection import ISSUE_FREE, REQUIREMENTS, Candidate
from dialbench.plotting import plot_label, save_png
from dialbench.safe_text import markdown_frame, markdown_text, spreadsheet_frame

ASPECTS = ("issue", "overall", "chatbot")
COLUMNS = ["language", "aspect", "value", "before", "after", "before_share", "after_share"]


def _classes(candidate: Candidate) -> Iterator[tuple[str, str]]:
    """The (aspect, value) rows a dialogue counts in."""
    yield "dialogues", "all"
    yield from (("issue", issue) for issue in candidate.issues or {ISSUE_FREE})
    yield "overall", str(candidate.overall)
    yield "chatbot", candidate.chatbot


def distribution(
    before: Sequence[Candidate],
    after: Sequence[Candidate],
    issue_types: Sequence[str],
    scale: Sequence[int],
) -> pd.DataFrame:
    """Long table: language, aspect, value, before, after and their shares of the language.
    Every issue type and score has a row, zero or not, so a gap shows."""
    rows = []
    for language in sorted({c.language for c in before}):
        pool = Counter(row for c in before if c.language == language for row in _classes(c))
        picked = Counter(row for c in after if c.language == language for row in _classes(c))
        chatbots = sorted(value for aspect, value in pool if aspect == "chatbot")
        shown = [
            ("dialogues", "all"),
            ("issue", ISSUE_FREE),
            *(("issue", key) for key in issue_types),
            *(("overall", str(score)) for score in scale),
            *(("chatbot", chatbot) for chatbot in chatbots),
        ]
        total, chosen = pool["dialogues", "all"], picked["dialogues", "all"]
        rows += [
            {
                "language": language,
                "aspect": aspect,
                "value": value,
                "before": pool[aspect, value],
                "after": picked[aspect, value],
                "before_share": pool[aspect, value] / total,
                "after_share": picked[aspect, value] / chosen if chosen else None,
            }
            for aspect, value in shown
        ]
    return pd.DataFrame(rows, columns=COLUMNS)


def write_csv(frame: pd.DataFrame, path: Path) -> Path:
    spreadsheet_frame(frame).to_csv(path, index=False)
    return path


def plot(frame: pd.DataFrame, path: Path) -> Path:
    """One row per language, one subplot per aspect: shares before (all candidates) and after."""
    languages = list(dict.fromkeys(frame["language"]))
    canvas, axes = plt.subplots(
        len(languages), len(ASPECTS), figsize=(15, 0.5 + 2.6 * len(languages)), squeeze=False
    )
    for row, language in enumerate(languages):
        of_language = frame[frame["language"] == language]
        totals = of_language[of_language["aspect"] == "dialogues"].iloc[0]
        for ax, aspect in zip(axes[row], ASPECTS, strict=True):
            shown = of_language[of_language["aspect"] == aspect]
            positions = np.arange(len(shown))
            ax.barh(
                positions - 0.2, shown["before_share"], 0.4, label=f"before (n={totals.before})"
            )
            ax.barh(
                positions + 0.2,
                shown["after_share"].fillna(0.0),
                0.4,
                label=f"after (n={totals.after})",
            )
            ax.set_yticks(positions, [plot_label(str(v), width=22) for v in shown["value"]])
            ax.invert_yaxis()
            ax.set_xlim(0, 1)
            ax.tick_params(labelsize=7)
            ax.set_title(plot_label(f"{language}: {aspect}", width=60), fontsize=9)
            ax.legend(fontsize=6, loc="lower right")
    canvas.supxlabel("share of the language's dialogues", fontsize=9)
    return save_png(canvas, path)


def write_markdown(
    path: Path,
    title: str,
    facts: Sequence[str],
    outcome: pd.DataFrame,
    frame: pd.DataFrame,
    plot_name: str,
) -> Path:
    """The page: what was curated how, per-language outcome, the relaxations' meaning, then each
    language's distribution before and after."""
    lines = [f"# {markdown_text(title)}", "", *(f"- {markdown_text(f)}" for f in facts), ""]
    lines += ["## Per language", "", markdown_frame(outcome).to_markdown(index=False), ""]
    lines += ["Requirements a pick may have relaxed:", ""]
    lines += [f"- `{key}`: {meaning}" for key, meaning in REQUIREMENTS.items()]
    lines += ["", f"![before and after]({plot_name})", ""]
    for language, part in frame.groupby("language", sort=False):
        shown = part.drop(columns="language")
        lines += [f"## {markdown_text(str(language))}", ""]
        lines += [markdown_frame(shown).to_markdown(index=False, floatfmt=".3f", missingval="-")]
        lines.append("")
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
