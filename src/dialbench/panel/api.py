"""`panel` as one typed call, for the CLI, the pipeline and scripts: several judges' judgments
of one protocol made one rater's (`panel:NAME`) and stored beside theirs, so the report,
`stats`, `compare`, `check`, metaeval and the corrected figures read the panel as one more
judge; with the members' agreement per language, and a warning where a member and a judged
chatbot share a model family."""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd
from pydantic import Field

from dialbench.errors import DialbenchError
from dialbench.metaeval.agreement import agreement, pairwise_kappa
from dialbench.metaeval.rating_matrix import RatingMatrix, rating_matrices, ratings_frame
from dialbench.panel.config import PanelConfig
from dialbench.panel.families import shared_families
from dialbench.panel.judgments import panel_judgments
from dialbench.panel.members import Members, read_members
from dialbench.panel.weights import Weights, measured_weights, panel_weights
from dialbench.ratings import human_ratings
from dialbench.schema import ALL_LANGUAGES, PanelSettings, Record
from dialbench.store import AddResult, RunStore

PANELS_FOLDER = "panels"
AGREEMENT_FILE = "agreement.csv"


class MemberAgreementRow(Record):
    """How far the members agree with each other, before any is taken for the panel:
    Krippendorff's alpha over the members at the dimension's level, and their mean pairwise
    Cohen's kappa (unweighted), as metaeval computes them for human annotators."""

    dimension: str
    language: str = Field(description="a language, or `all` (every language's items pooled)")
    scale: str
    alpha: float | None
    mean_pairwise_kappa: float | None
    n_items: int = Field(description="items two members or more answered")
    n_members: int
    note: str | None = None


class PanelResult(Record):
    judge_model: str
    protocol: str
    members: list[str]
    settings: PanelSettings
    judged: int = Field(description="panel judgments with a verdict")
    failed: int = Field(description="items fewer than half the members answered")
    agreement: list[MemberAgreementRow]
    agreement_file: Path
    family_warnings: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    stored: AddResult


def _member_matrices(
    members: Members, chatseeds: dict[str, str], notes: list[str]
) -> list[RatingMatrix]:
    """The members set side by side as metaeval sets annotators: items x members per
    dimension, over all languages and each one."""
    frame = ratings_frame(members.as_ratings("human"), None, chatseeds)
    if frame.empty:
        raise DialbenchError(
            f"no member answered any item of protocol {members.protocol}: nothing to combine"
        )
    return list(rating_matrices(frame, {}, notes))


def _agreement(matrices: list[RatingMatrix], limit: int) -> list[MemberAgreementRow]:
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # undefined kappa: None with a note
        for matrix in matrices:
            found = agreement(matrix, pairwise_kappa(matrix, limit), limit)
            rows.append(
                MemberAgreementRow(
                    dimension=found.dimension,
                    language=found.language,
                    scale=found.scale,
                    alpha=found.alpha,
                    mean_pairwise_kappa=found.mean_pairwise_kappa,
                    n_items=found.n_items,
                    n_members=found.n_annotators,
                    note=found.note,
                )
            )
    return rows


def _weights(
    store: RunStore, members: Members, cells: list[tuple[str, str]], notes: list[str]
) -> Weights:
    humans = human_ratings(store)
    run = store.path.parent
    if not humans:
        raise DialbenchError(
            f"{run} holds no human labels to weigh the members by: import them (dialbench "
            f"import FILE --records annotations --run {run}), or choose --method median"
        )
    measured = measured_weights(humans, members.as_ratings("judge"), store.chatseeds())
    return panel_weights(measured, cells, members.names, notes)


def panel(config: PanelConfig, run_dir: str | Path) -> PanelResult:
    """Combine the members' judgments into the panel's and store them (a re-run with the same
    members, method and labels changes nothing); write the members' agreement per language."""
    run_dir = Path(run_dir)
    notes: list[str] = []
    with RunStore.open(run_dir, create=False) as store:
        members = read_members(store, config, run_dir)
        matrices = _member_matrices(members, store.chatseeds(), notes)
        per_language = {
            (m.language, m.dimension): m for m in matrices if m.language != ALL_LANGUAGES
        }
        weights = (
            _weights(store, members, list(per_language), notes)
            if config.method == "weighted"
            else {}
        )
    settings = PanelSettings(members=members.names, method=config.method, weights=weights)
    rows = _agreement(matrices, config.max_pairwise_members)
    folder = run_dir / PANELS_FOLDER / config.name
    folder.mkdir(parents=True, exist_ok=True)
    agreement_file = folder / AGREEMENT_FILE
    pd.DataFrame(
        [r.model_dump() for r in rows], columns=list(MemberAgreementRow.model_fields)
    ).to_csv(agreement_file, index=False)
    with (
        RunStore.open(run_dir) as store,
        store.invocation("panel", config.model_dump(mode="json")) as run,
    ):
        judgments = panel_judgments(members, per_language, settings, config.judge_model, run.id)
        stored = store.add(judgments, run, "replace")
    judged = sum(j.parse_status == "ok" for j in judgments)
    return PanelResult(
        judge_model=config.judge_model,
        protocol=members.protocol,
        members=members.names,
        settings=settings,
        judged=judged,
        failed=len(judgments) - judged,
        agreement=rows,
        agreement_file=agreement_file,
        family_warnings=shared_families(members.models.values(), members.chatbots.values()),
        notes=notes,
        stored=stored,
    )
