"""Where the packaged evaluators behind a run's judgments were measured against truth: a
packaged metric's card, a packaged local judge's figures against DBDC3's humans. A run of task or
support dialogues judged by an evaluator measured on chit-chat only is judged by something no
figure vouches for there; the report says so beside its tables."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from dialbench.domains import DOMAINS, unmeasured
from dialbench.llm.measured import measured_judges
from dialbench.llm.packaged import PACKAGED_MODELS
from dialbench.metrics.packaged import MetricCard, packaged_metrics, unmeasured_domains
from dialbench.report.section import Section, write_table

NOTE = (
    "The figures that say how far these packaged evaluators agree with the truth "
    "(`dialbench metric list`, `dialbench models`) were measured on these domains only: on a "
    "domain never measured they say nothing, and the judgments of dialogues from there are "
    "unvalidated. Constructed labels are real vs corrupted replies: a proxy, not human judgment."
)


def _measured_on(card: MetricCard) -> str:
    """Each domain measured, with the kinds of labels its figures had."""
    labels: dict[str, list[str]] = {domain: [] for domain in DOMAINS}
    for figure in card.figures:
        if figure.labels not in labels[figure.domain]:
            labels[figure.domain].append(figure.labels)
    return "; ".join(f"{domain} ({', '.join(kinds)})" for domain, kinds in labels.items() if kinds)


def measured_domains(judge_models: Iterable[str]) -> pd.DataFrame:
    """One row per packaged metric or packaged local judge among `judge_models`: the domains its
    figures were measured on, and those none of them measured. A packaged metric's earlier
    version (a run judged before an upgrade) is shown with the card of the one installed, said."""
    present = set(judge_models)
    rows = []
    if any(model.startswith("metric:") for model in present):
        for info, card in packaged_metrics():
            for model in sorted(m for m in present if m.startswith(f"{info.protocol}@")):
                shown = _measured_on(card)
                if model != info.judge_model:  # judged by an earlier version of the metric
                    shown += f" [the card of version {info.version}, not this one]"
                rows.append((model, shown, unmeasured_domains(card)))
    judges = measured_judges()
    for name in PACKAGED_MODELS:
        spec = f"local:{name}"
        if spec in present:
            measured = [judges.domain] if spec in judges.models else []
            shown = f"{judges.domain} (human)" if measured else "-"
            rows.append((spec, shown, unmeasured(measured)))
    return pd.DataFrame(
        [(model, shown, ", ".join(never) or "-") for model, shown, never in rows],
        columns=["evaluator", "measured on (labels)", "never measured"],
    )


def measured_domains_section(frame: pd.DataFrame, folder: Path) -> list[Section]:
    """The section, when a packaged evaluator judged anything in the run."""
    domains = measured_domains(frame["judge_model"].unique())
    if domains.empty:
        return []
    return [
        Section(
            key="measured_domains",
            title="Where these evaluators were measured",
            note=NOTE,
            tables=[write_table(folder, "measured_domains", "Per packaged evaluator", domains)],
        )
    ]
