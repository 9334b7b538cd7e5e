"""Every meta-evaluation figure for a set of ratings, dimension by dimension and language by
language; which statistics apply follows from each dimension's scale."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import pandas as pd
from pydantic import Field

from dialbench.errors import DialbenchError
from dialbench.metaeval.agreement import HumanAgreementRow, KappaRow, agreement, pairwise_kappa
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
from dialbench.metaeval.inference import DESIGN
from dialbench.metaeval.rating_matrix import (
    ALL_POOLED,
    SAMPLES_RULE,
    rating_matrices,
    ratings_frame,
    repeated,
)
from dialbench.metaeval.significance import McNemarRow, mcnemar_rows
from dialbench.ratings import Rating
from dialbench.resampling import MIN_CLUSTERS
from dialbench.schema import Judgment, Record


class MetaEvalTables(Record):
    agreement: list[HumanAgreementRow] = Field(default_factory=list)
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
    *,
    chatseeds: Mapping[str, str] | None = None,
    agreement_only: bool = False,
) -> MetaEvalTables:
    """Every figure, resampling self-chats by the ChatSEED they continue (`chatseeds`, dialogue
    -> seed) and other items by dialogue; with `agreement_only`, the humans' agreement alone
    (alpha and kappa, as the web app shows it live), without the resampled figures."""
    options = options or MetaEvalOptions()
    frame = ratings_frame(ratings, options.default_language, chatseeds)
    if not (frame["kind"] == "human").any():
        raise DialbenchError("no human ratings: give annotations (in the run or with --against)")
    report = MetaEvalTables()
    with warnings.catch_warnings():
        # Undefined statistics (constant input, one class) are reported as None with a note;
        # the libraries' own warnings about them would only repeat that.
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", UserWarning)
        _fill(report, frame, options, agreement_only)
    report.notes += _inference_notes(report) + ([SAMPLES_RULE] if repeated(frame) else [])
    report.unscored = unscored_rates(frame)
    report.consistency = position_consistency(judgments)
    return report


def _inference_notes(report: MetaEvalTables) -> list[str]:
    """How the intervals were drawn, what "all" is, and where too few dialogues hold them up."""
    counts = [(r.language, r.n_dialogues) for r in report.correlation] + [
        (r.language, r.n_dialogues) for r in report.detection
    ]
    if not counts:
        return []
    few = sorted({(language, n) for language, n in counts if 0 < n < MIN_CLUSTERS})
    notes = [DESIGN, ALL_POOLED]
    if few:
        where = ", ".join(f"{language} ({n})" for language, n in few)
        notes.append(
            f"fewer than {MIN_CLUSTERS} dialogues behind the figures of {where}: "
            "their intervals and p-values are not reliable"
        )
    return notes


def _fill(
    report: MetaEvalTables, frame: pd.DataFrame, options: MetaEvalOptions, agreement_only: bool
) -> None:
    limit = options.max_pairwise_annotators
    for matrix in rating_matrices(frame, options.scales, report.notes, options.detect):
        pairs = pairwise_kappa(matrix, limit)
        report.kappa_pairs.extend(pairs)
        report.agreement.append(agreement(matrix, pairs, limit))
        if agreement_only:
            continue
        report.distribution.extend(distributions(matrix))
        scale = matrix.spec.scale
        if scale == "binary":
            report.detection.extend(detection(matrix, options.bootstrap_resamples, options.seed))
            report.mcnemar.extend(mcnemar_rows(matrix, limit))
        if scale in ("nominal", "ordinal") and not matrix.judges_numeric:
            report.classification.extend(classification(matrix, limit))
        if scale in ("ordinal", "interval"):
            report.correlation.extend(
                correlations(matrix, options.bootstrap_resamples, options.seed)
            )
