"""`dialbench metric diqad train` as one typed call, for the CLI and the pipeline: each
classifier fitted on the labelled dialogues and tested three ways, the one asked for saved."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from dialbench.errors import DialbenchError
from dialbench.metrics.diqad.config import DiqadTrainConfig
from dialbench.metrics.diqad.data import domain, labelled_dialogues, split
from dialbench.metrics.diqad.evaluate import ClassifierEvaluation, evaluate
from dialbench.metrics.diqad.saved_classifier import DiqadInfo, save_classifier
from dialbench.schema import Record


class DiqadTrainResult(Record):
    dialogues: int
    labels: dict[int, int] = Field(description="label (0, 1, 2) -> dialogues")
    heldout: int = Field(description="dialogues held out from training")
    domains: int
    reports: list[ClassifierEvaluation] = Field(
        description="per classifier: held-out figures, each domain left out, the sentiment shift"
    )
    saved: DiqadInfo | None = None
    saved_to: Path | None = None


def train_diqad(config: DiqadTrainConfig, data: str | Path) -> DiqadTrainResult:
    """Train and test each classifier on `data` (a run directory, or a dialogue file whose
    dialogues carry the label in their metadata): on held-out dialogues, per left-out domain,
    and with a positive or negative user reaction appended; save it when `config.save` says
    where."""
    data = Path(data)
    found = labelled_dialogues(data, config.label, config.protocol)
    if not found:
        raise DialbenchError(f"{data}: no dialogue with a 0/1/2 {config.label!r} label")
    dialogues = [d for d, _ in found]
    labels = [y for _, y in found]
    domains = [domain(d, config.domain) for d in dialogues]
    heldout = split(dialogues, config.holdout, config.seed)
    fitted = [
        evaluate(name, dialogues, labels, domains, heldout, config.seed)
        for name in config.classifiers
    ]
    reports = [report for report, _ in fitted]
    saved = None
    if config.save is not None:
        saved = save_classifier(
            config.save,
            fitted[0][1],
            DiqadInfo(
                name=config.metric_name,
                dimension=config.label,
                classifier=reports[0].classifier,
                n_train=len(dialogues) - sum(heldout),
                heldout=reports[0].heldout,
                heldout_dialogues=sorted(
                    d.id for d, held in zip(dialogues, heldout, strict=True) if held
                ),
            ),
        )
    return DiqadTrainResult(
        dialogues=len(dialogues),
        labels={y: labels.count(y) for y in (0, 1, 2)},
        heldout=sum(heldout),
        domains=len(set(domains)),
        reports=reports,
        saved=saved,
        saved_to=config.save,
    )
