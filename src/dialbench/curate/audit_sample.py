"""An audit sample: a probability sample of a run's judged chatbot dialogues, drawn for human
labels that correct the chatbots' figures (`figures/corrected.py`).

Each language × chatbot is a stratum, and with `oversample_flagged` K > 1 it is split by whether
the judge flagged the dialogue (any issue): the flagged part gets K times its share of the
cell's draws, so the rare dialogues a judge is most often wrong about are labelled more often.
Each stratum is drawn without replacement by a seeded generator, so a dialogue's inclusion
probability is exactly its stratum's sampled / population, stored with it: the weights the
correction needs. The dialogue is the sampling unit; for a turn-level protocol every turn of a
drawn dialogue is labelled, with its dialogue's probability. Stored as a `Benchmark` with a
`design`, so the annotation app and `annotate` serve it as they serve a curated one; the same
arguments find the same sample, other arguments under its name are refused.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
from pydantic import Field

from dialbench.errors import DialbenchError
from dialbench.io.jsonl import write_jsonl
from dialbench.ratings import placed_judgments
from dialbench.schema import (
    Benchmark,
    BenchmarkItem,
    Dialogue,
    LanguageCode,
    Provenance,
    Record,
    SampleDesign,
    Stratum,
)
from dialbench.store import RunStore
from dialbench.store_contents import HUMAN

SAMPLE_FILE = "benchmark.jsonl"


class AuditConfig(Record):
    """What `dialbench audit draw` was asked."""

    name: str
    per_cell: int = Field(default=30, ge=1, description="dialogues per language × chatbot")
    oversample_flagged: float = Field(default=1.0, ge=1)
    judge: str | None = Field(default=None, description="whose flags; needed to oversample")
    protocol: str = "issues"
    languages: list[LanguageCode] = Field(default_factory=list)
    seed: int = 0


class AuditLine(Record):
    """One drawn dialogue as the sample's JSON Lines file holds it, for an annotation tool."""

    benchmark: str
    position: int
    language: str
    stratum: str
    inclusion_probability: float
    dialogue: Dialogue


class AuditResult(Record):
    benchmark: Benchmark
    status: str = Field(description="added, or unchanged when drawn before")
    file: str


def _judged(store: RunStore, config: AuditConfig) -> dict[tuple[str, str], dict[str, bool]]:
    """(language, chatbot) -> each judged chatbot dialogue -> whether the judge flagged it."""
    cells: dict[tuple[str, str], dict[str, bool]] = defaultdict(dict)
    judges = set()
    for judgment, placed in placed_judgments(store):
        if placed.chatbot == HUMAN or judgment.parse_status != "ok":
            continue
        if config.languages and placed.language not in config.languages:
            continue
        dialogue = judgment.target.dialogue_id
        cell = cells[(placed.language, placed.chatbot)]
        cell.setdefault(dialogue, False)
        if judgment.protocol == config.protocol:
            judges.add(placed.rater)
        if placed.rater == config.judge and judgment.protocol == config.protocol:
            issues = (judgment.result or {}).get("issues")
            if isinstance(issues, dict) and any(value is True for value in issues.values()):
                cell[dialogue] = True
    if config.oversample_flagged > 1 and config.judge not in judges:
        listed = ", ".join(sorted(judges)) or "none"
        raise DialbenchError(
            f"--oversample-flagged needs --judge, one of the run's {config.protocol} judges: "
            f"{listed}"
        )
    if not cells:
        raise DialbenchError("no judged chatbot dialogues to sample: judge the run first")
    return cells


def allocate(per_cell: int, flagged: int, unflagged: int, factor: float) -> tuple[int, int]:
    """The draws of a cell's flagged and unflagged parts: flagged dialogues `factor` times as
    likely, each part capped at its size, what one part cannot take given to the other; every
    part that holds dialogues gets at least one draw where the cell has two, since a part never
    drawn has no label to stand for it and would bias the corrected figure."""
    total = min(per_cell, flagged + unflagged)
    share = factor * flagged / (factor * flagged + unflagged) if flagged else 0.0
    drawn_flagged = min(flagged, round(total * share))
    if total >= 2 and flagged and unflagged:
        drawn_flagged = min(max(drawn_flagged, 1), total - 1)
    drawn_unflagged = min(unflagged, total - drawn_flagged)
    return min(flagged, total - drawn_unflagged), drawn_unflagged


def draw(store: RunStore, config: AuditConfig) -> tuple[SampleDesign, list[BenchmarkItem]]:
    """The strata in sorted order, each drawn by one seeded generator."""
    rng = np.random.default_rng(config.seed)
    split = config.oversample_flagged > 1
    strata, items = [], []
    for (language, chatbot), dialogues in sorted(_judged(store, config).items()):
        parts: dict[bool | None, list[str]] = defaultdict(list)
        for dialogue, was_flagged in sorted(dialogues.items()):
            parts[was_flagged if split else None].append(dialogue)
        if split:
            sizes = allocate(
                config.per_cell, len(parts[True]), len(parts[False]), config.oversample_flagged
            )
            wanted: dict[bool | None, int] = {True: sizes[0], False: sizes[1]}
        else:
            wanted = {None: min(config.per_cell, len(parts[None]))}
        for flagged, members in parts.items():
            if not members:
                continue
            name = f"{language}×{chatbot}" + (
                "" if flagged is None else "×flagged" if flagged else "×unflagged"
            )
            n = wanted[flagged]
            strata.append(
                Stratum(
                    name=name,
                    language=language,
                    chatbot=chatbot,
                    flagged=flagged,
                    population=len(members),
                    sampled=n,
                )
            )
            chosen = rng.choice(len(members), size=n, replace=False)
            items += [
                BenchmarkItem(
                    dialogue_id=members[index],
                    language=language,
                    reason=f"drawn at random from stratum {name}",
                    stratum=name,
                    inclusion_probability=n / len(members),
                )
                for index in sorted(chosen)
            ]
    design = SampleDesign(
        random_seed=config.seed,
        per_cell=config.per_cell,
        judge=config.judge,
        protocol=config.protocol,
        oversample_flagged=config.oversample_flagged,
        strata=strata,
    )
    return design, items


def draw_audit_sample(config: AuditConfig, run_dir: str | Path) -> AuditResult:
    """Draw (or find) the sample, store it as a benchmark and write its JSON Lines file."""
    run_dir = Path(run_dir)
    with RunStore.open(run_dir, create=False) as store:
        design, items = draw(store, config)
        benchmark = Benchmark(
            name=config.name, settings=config.model_dump(mode="json"), items=items, design=design
        )
        with store.invocation("audit", config.model_dump(mode="json")) as run:
            stored = store.get(Benchmark, benchmark.id)
            if stored is not None:
                if stored.model_dump(exclude={"provenance"}) != benchmark.model_dump(
                    exclude={"provenance"}
                ):
                    raise DialbenchError(
                        f"a benchmark {config.name!r} already exists with other settings or "
                        "selections; choose another --name"
                    )
                benchmark, status = stored, "unchanged"
            else:
                benchmark = benchmark.model_copy(
                    update={"provenance": Provenance(run_id=run.id, config_hash=run.config_hash)}
                )
                store.add([benchmark], run)
                status = "added"
        dialogues = {d.id: d for d in store.records(Dialogue)}
    folder = run_dir / "benchmarks" / config.name
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / SAMPLE_FILE
    lines = [
        AuditLine(
            benchmark=config.name,
            position=position,
            language=item.language,
            stratum=str(item.stratum),
            inclusion_probability=float(item.inclusion_probability or 0),
            dialogue=dialogues[item.dialogue_id],
        )
        for position, item in enumerate(benchmark.items, 1)
    ]
    with path.open("w", encoding="utf-8") as stream:
        write_jsonl(lines, stream)
    return AuditResult(benchmark=benchmark, status=status, file=str(path))


def audit_samples(store: RunStore) -> list[Benchmark]:
    """The run's probability samples (benchmarks with a design)."""
    return [b for b in store.records(Benchmark) if b.design is not None]
