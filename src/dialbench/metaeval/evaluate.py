"""Every meta-evaluation figure for a set of ratings, dimension by dimension and language by
language; which statistics apply follows from each dimension's scale."""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import pandas as pd
from pydantic import Field

from dialbench.errors import DialbenchError
from dialbench.io.ratings import Rating
from dialbench.metaeval.agreement import AgreementRow, KappaRow, agreement, pairwise_kappa
from dialbench.metaeval.classification import ClassificationRow, classification
from dialbench.metaeval.config import MetaEvalOptions
from dialbench.metaeval.correlation import CorrelationRow, correlations
from dialbench.metaeval.detection import DetectionRow, detection
from dialbench.metaeval.diagnostics import (
    ConsistencyRow,
    DistributionRow,
    UnscoredRow,
    distributions,
    position_consistency,
    unscored_rates,
)
from dialbench.metaeval.panels import build_panels, ratings_frame
from dialbench.metaeval.significance import McNemarRow, mcnemar_rows
from dialbench.schema import Judgment, Record


class MetaEvalReport(Record):
    agreement: list[AgreementRow] = Field(default_factory=list)
    kappa_pairs: list[KappaRow] = Field(default_factory=list)
    detection: list[DetectionRow] = Field(default_factory=list)
    classification: list[ClassificationRow] = Field(default_factory=list)
    correlation: list[CorrelationRow] = Field(default_factory=list)
    mcnemar: list[McNemarRow] = Field(default_factory=list)
    unscored: list[UnscoredRow] = Field(default_factory=list)
    distribution: list[DistributionRow] = Field(default_factory=list)
    consistency: list[ConsistencyRow] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


def meta_evaluate(
    ratings: Sequence[Rating],
    judgments: Sequence[Judgment] = (),
    options: MetaEvalOptions | None = None,
) -> MetaEvalReport:
    options = options or MetaEvalOptions()
    frame = ratings_frame(ratings, options.default_language)
    if not (frame["kind"] == "human").any():
        raise DialbenchError("no human ratings: give annotations (in the run or with --against)")
    report = MetaEvalReport()
    with _quiet():
        _fill(report, frame, options)
    report.unscored = unscored_rates(frame)
    report.consistency = position_consistency(judgments)
    return report


def agreement_table(
    ratings: Sequence[Rating], options: MetaEvalOptions | None = None
) -> list[AgreementRow]:
    """Only the agreement between annotators, as `meta_evaluate` has it: for a live view."""
    options = options or MetaEvalOptions()
    frame = ratings_frame(ratings, options.default_language)
    limit = options.max_pairwise_annotators
    with _quiet():
        return [
            agreement(panel, pairwise_kappa(panel, limit), limit)
            for panel in build_panels(frame, options.scales, [], options.detect)
        ]


@contextmanager
def _quiet() -> Iterator[None]:
    """Undefined statistics (constant input, one class) are reported as None with a note; the
    libraries' own warnings about them would only repeat that."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", UserWarning)
        yield


def _fill(report: MetaEvalReport, frame: pd.DataFrame, options: MetaEvalOptions) -> None:
    limit = options.max_pairwise_annotators
    for panel in build_panels(frame, options.scales, report.notes, options.detect):
        pairs = pairwise_kappa(panel, limit)
        report.kappa_pairs.extend(pairs)
        report.agreement.append(agreement(panel, pairs, limit))
        report.distribution.extend(distributions(panel))
        scale = panel.spec.scale
        if scale == "binary":
            report.detection.extend(detection(panel))
            report.mcnemar.extend(mcnemar_rows(panel, limit))
        if scale in ("nominal", "ordinal") and not panel.judges_numeric:
            report.classification.extend(classification(panel, limit))
        if scale in ("ordinal", "interval"):
            report.correlation.extend(
                correlations(panel, options.bootstrap_resamples, options.seed)
            )
