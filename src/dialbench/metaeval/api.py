"""`metaeval` as one typed call, for the CLI, the pipeline and scripts: human ratings (a run's
annotations and/or files) against the judges and metrics that rated the same items."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from dialbench.errors import DialbenchError
from dialbench.io.long_format import read_ratings
from dialbench.llm.specs import ModelSpecError, parse_spec
from dialbench.metaeval.config import MetaevalConfig
from dialbench.metaeval.evaluate import MetaEvalTables, meta_evaluate
from dialbench.metaeval.report import write_metaeval_report
from dialbench.ratings import JudgeNames, Rating, configuration_summary, from_store
from dialbench.schema import Judgment, Record
from dialbench.store import RunStore


class MetaevalResult(Record):
    report: MetaEvalTables
    folder: Path
    written: list[Path]
    warnings: list[str] = Field(default_factory=list)


def _looks_like_spec(name: str) -> bool:
    """Whether a rater name reads as a model spec (local:..., openai:..., ...)."""
    try:
        parse_spec(name)
    except ModelSpecError:
        return False
    return True


def _paired(ratings: list[Rating], pairs: dict[str, str]) -> list[Rating]:
    """Judges' ratings of each paired dimension, renamed to the human dimension they answer."""
    return [
        r.model_copy(update={"dimension": pairs[r.dimension]})
        if r.kind == "judge" and r.dimension in pairs
        else r
        for r in ratings
    ]


def configuration_notes(judgments: list[Judgment]) -> list[str]:
    """Which configuration each judge's figures come from, one note per judge as figures name it."""
    names = JudgeNames(judgments, compared_protocols=True)
    described: dict[str, Judgment] = {}
    for judgment in judgments:
        described.setdefault(names(judgment), judgment)
    notes = []
    for name, judgment in sorted(described.items()):
        summary = configuration_summary(judgment.configuration)
        fields = "; ".join(f"{key} {value}" for key, value in summary.items() if value)
        fingerprint = judgment.configuration.fingerprint if judgment.configuration else "none"
        notes.append(f"judge {name} ({judgment.protocol}): configuration {fingerprint}: {fields}")
    return notes


def metaeval(config: MetaevalConfig, run_dir: str | Path | None = None) -> MetaevalResult:
    """Meta-evaluate: every figure written to the output folder, and the report returned."""
    ratings: list[Rating] = []
    judgments: list[Judgment] = []
    warnings = []
    chatseeds: dict[str, str] = {}
    if run_dir is not None:
        with RunStore.open(run_dir, create=False) as store:
            ratings, judgments = from_store(store, config.protocol, config.include_partial)
            chatseeds = store.chatseeds()
    for path in config.against:
        humans = read_ratings(path, "human")
        warnings += [
            f"{path}: rater {rater!r} looks like a model spec but counts as a human annotator; "
            "give the file a kind column (human|judge), or pass it with --predictions"
            for rater in sorted({r.rater for r in humans if r.kind == "human"})
            if _looks_like_spec(rater)
        ]
        ratings += humans
    for path in config.predictions:
        ratings += read_ratings(path, "judge")
    if not ratings:
        raise DialbenchError("nothing to meta-evaluate: give a RUN with annotations, or --against")
    report = meta_evaluate(
        _paired(ratings, config.pairs), judgments, config.options, chatseeds=chatseeds
    )
    report.notes += configuration_notes(judgments)
    folder = config.output or (
        Path(run_dir) / "metaeval" if run_dir is not None else Path("metaeval")
    )
    return MetaevalResult(
        report=report,
        folder=folder,
        written=write_metaeval_report(report, folder),
        warnings=warnings,
    )
