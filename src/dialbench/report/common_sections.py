"""The report's sections that hold for every protocol (differences between chatbots, samples,
judges, where packaged judges were measured, configurations, the dataset), and the assembly of
the judged part: each protocol's own sections, then these.

A protocol's sections are the section of the figures it declares (`report/figures_section.py`)
and those of its entry in `report/protocols/` (`PROTOCOL_SECTIONS`); the sections here hold for
every protocol. The differences between chatbots are corrected by human labels where a
probability sample's are in the run (`figures/figure_basis.py`, `auto`), beside the corrected
figures themselves (`report/corrected_section.py`).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from dialbench.analysis.dataset_stats import dataset_statistics
from dialbench.figures.differences import design_note
from dialbench.figures.family import Correction
from dialbench.figures.figure_basis import differences_on
from dialbench.judge.registry import PROTOCOLS
from dialbench.report import tables
from dialbench.report.context import ReportContext
from dialbench.report.corrected_section import corrected_sections
from dialbench.report.figures_section import figures_sections
from dialbench.report.measured_domains import measured_domains_section
from dialbench.report.protocols import PROTOCOL_SECTIONS
from dialbench.report.section import Section, write_table
from dialbench.store import RunStore

CORRECTION: Correction = "holm"
SHOWN_FLAGGED = 50
NOT_SHOWN = [
    "lowest",
    "highest",
    "worse_by",
    "p_value",
    "holds",
    "detectable",
    "note",
]  # in the CSV; the table shows what holds


def differences_note(differences: pd.DataFrame, basis: str) -> str:
    """The design, the family, what the figures were computed on, and how many of the
    comparisons hold (said when none does)."""
    compared = len(differences)
    tested = int(differences["p_value"].notna().sum())
    unpaired = int((differences["design"] == "unpaired").sum())
    unpaired_note = (
        f" ({unpaired} unpaired: the two chatbots share fewer than two seeds)" if unpaired else ""
    )
    holding = int(differences["holds"].sum())
    found = (
        f"{holding} of them hold{'s' * (holding == 1)}"
        if holding
        else "none of them holds: no chatbot is shown to differ from another on any figure"
    )
    return (
        f"Every pair of chatbots on every figure, per judge and language: {compared} "
        f"comparisons{unpaired_note}, {tested} of them tested, the family the correction is "
        f"over; {found}. "
        f"{design_note(CORRECTION)}; {basis}. The table shows the differences that hold; its "
        "CSV holds every comparison."
    )


def differences_section(context: ReportContext) -> list[Section]:
    """Differences that hold: every pair of chatbots compared on every chatbot figure, one
    family; none when fewer than two chatbots share a figure."""
    differences, basis = differences_on(
        "auto",
        context.chatbot_observations,
        context.labelled.frame,
        context.labelled.note,
        correction=CORRECTION,
    )
    if differences.empty:
        return []
    holding = differences[differences["holds"].astype(bool)]
    shown = (
        holding.drop(columns=NOT_SHOWN)
        .rename(columns={"units": "seeds"})
        .assign(p_adjusted=[f"{p:.2g}" for p in holding["p_adjusted"]])
    )
    return [
        Section(
            key="differences",
            title="Differences that hold",
            note=differences_note(differences, basis),
            tables=[
                write_table(
                    context.folder,
                    "chatbot_differences",
                    "Differences that hold (first − second)",
                    differences,
                    shown,
                )
            ],
        )
    ]


def samples_section(frame: pd.DataFrame, folder: Path) -> list[Section]:
    spread = tables.sample_spread(frame)
    if spread.empty:
        return []
    return [
        Section(
            key="samples",
            title="Spread across samples",
            note="Items judged several times: mean standard deviation of their samples, and the "
            "share of items on which every sample agreed.",
            tables=[
                write_table(folder, "sample_spread", "Per protocol, judge and dimension", spread)
            ],
        )
    ]


def judges_section(frame: pd.DataFrame, folder: Path) -> Section:
    return Section(
        key="judges",
        title="Unscored judgments, tokens and cost per judge",
        note="Unscored = no usable answer after the bounded re-ask, or a failed call: counted "
        "here, never turned into a label. Cost is empty for unpriced models.",
        tables=[
            write_table(
                folder, "judges", "Per protocol, judge and language", tables.usage_by_judge(frame)
            )
        ],
    )


def injection_section(frame: pd.DataFrame, folder: Path) -> list[Section]:
    """The judgments whose judged text addressed the judge; none when no text did."""
    flagged = tables.injection_flags_by_judge(frame)
    if flagged.empty:
        return []
    items = frame[frame["injection_kinds"].astype(bool)][
        ["protocol", "judge", "dialogue_id", "turn_index", "sample_index", "injection_kinds"]
    ]
    return [
        Section(
            key="injection",
            title="Text addressed to the judge",
            note="Judgments whose judged text holds an instruction to the evaluator, a forged "
            "verdict, a role tag, a forged transcript line, a fake end or hidden markup, as "
            "dialbench's detector finds them (`dialbench.injection`): their verdicts were made "
            "with it in sight. `dialbench serve` shows each flag's text on its dialogue's page; "
            "`dialbench probe` measures how far such text moves a judge, and `judge --fence` "
            "shows it to the judge as data. The CSV lists every flagged judgment.",
            tables=[
                write_table(folder, "injection_flags", "Per protocol, judge and language", flagged),
                write_table(
                    folder,
                    "injection_flagged_judgments",
                    f"Flagged judgments ({len(items)}; the first {SHOWN_FLAGGED} shown)",
                    items,
                    items.head(SHOWN_FLAGGED),
                ),
            ],
        )
    ]


def configurations_section(frame: pd.DataFrame, folder: Path) -> Section:
    return Section(
        key="configurations",
        title="Judge configurations",
        note="What each judge was asked under: the protocol's options, the generation "
        "parameters, and the sha256 of the prompt and data files (first 8 hex digits). Where one "
        "judge judged a protocol under several configurations, tables name it with the "
        "configuration in brackets, and each configuration's judgments are counted apart.",
        tables=[
            write_table(
                folder, "configurations", "Per protocol and judge", tables.configurations(frame)
            )
        ],
    )


def dataset_section(store: RunStore, folder: Path) -> Section:
    """The dataset statistics (MEDAL Table 3 and more), one table per list of rows."""
    stats = dataset_statistics(store)
    section = Section(key="dataset", title="Dataset statistics")
    for name in type(stats).model_fields:
        rows = getattr(stats, name)
        if rows:
            frame = pd.json_normalize([row.model_dump(mode="json") for row in rows])
            section.tables.append(
                write_table(folder, f"dataset_{name}", name.replace("_", " ").capitalize(), frame)
            )
    return section


def judged_sections(context: ReportContext) -> list[Section]:
    """Each protocol's sections in registry order (its figures', then its own), then those every
    protocol shares."""
    frame, folder = context.frame, context.folder
    present = set(frame["protocol"])
    found: list[Section] = []
    for protocol in [p for p in dict.fromkeys([*PROTOCOLS, *PROTOCOL_SECTIONS]) if p in present]:
        if protocol in PROTOCOLS:
            found += figures_sections(context, PROTOCOLS.load(protocol))
        if protocol in PROTOCOL_SECTIONS:
            own = frame[frame["protocol"] == protocol].dropna(axis=1, how="all")
            found += PROTOCOL_SECTIONS.load(protocol)(own, context)
    return [
        *found,
        *corrected_sections(context),
        *differences_section(context),
        *samples_section(frame, folder),
        judges_section(frame, folder),
        *injection_section(frame, folder),
        *measured_domains_section(frame, folder),
        configurations_section(frame, folder),
    ]
