"""The report's sections that hold for every protocol (samples, judges, configurations, the
dataset), and the assembly of the judged part: each protocol's own sections, then these.

A protocol's own sections come from its entry in `report/protocols/` (`PROTOCOL_SECTIONS`);
the sections here hold for every protocol.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from dialbench.analysis.dataset_stats import dataset_statistics
from dialbench.report import tables
from dialbench.report.protocols import PROTOCOL_SECTIONS
from dialbench.report.section import Section, table
from dialbench.store import RunStore


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
            tables=[table(folder, "sample_spread", "Per protocol, judge and dimension", spread)],
        )
    ]


def judges_section(frame: pd.DataFrame, folder: Path) -> Section:
    return Section(
        key="judges",
        title="Unscored judgments, tokens and cost per judge",
        note="Unscored = no usable answer after the bounded re-ask, or a failed call: counted "
        "here, never turned into a label. Cost is empty for unpriced models.",
        tables=[
            table(
                folder, "judges", "Per protocol, judge and language", tables.usage_by_judge(frame)
            )
        ],
    )


def configurations_section(frame: pd.DataFrame, folder: Path) -> Section:
    return Section(
        key="configurations",
        title="Judge configurations",
        note="What each judge was asked under: the protocol's options, the generation "
        "parameters, and the sha256 of the prompt and data files (first 8 hex digits). Where one "
        "judge judged a protocol under several configurations, tables name it with the "
        "configuration in brackets, and each configuration's judgments are counted apart.",
        tables=[
            table(folder, "configurations", "Per protocol and judge", tables.configurations(frame))
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
                table(folder, f"dataset_{name}", name.replace("_", " ").capitalize(), frame)
            )
    return section


def judged_sections(frame: pd.DataFrame, folder: Path, store: RunStore) -> list[Section]:
    """Each protocol's own sections, in registry order, then those every protocol shares."""
    present = set(frame["protocol"])
    found: list[Section] = []
    for protocol in [p for p in PROTOCOL_SECTIONS if p in present]:
        own = frame[frame["protocol"] == protocol].dropna(axis=1, how="all")
        found += PROTOCOL_SECTIONS.load(protocol)(own, folder, store)
    return [
        *found,
        *samples_section(frame, folder),
        judges_section(frame, folder),
        configurations_section(frame, folder),
    ]
