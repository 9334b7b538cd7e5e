"""A saved DiQAD classifier: its folder (the fitted pipeline and its description), and judging
dialogues with it as an LLM judge of whole dialogues does."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import joblib
from pydantic import Field
from sklearn.pipeline import Pipeline

from dialbench.errors import DialbenchError
from dialbench.hashing import file_sha256
from dialbench.metrics.diqad.config import METRIC_NAME
from dialbench.metrics.diqad.evaluate import Figures
from dialbench.metrics.diqad.splice import splice
from dialbench.schema import (
    Dialogue,
    Invocation,
    JudgeConfiguration,
    Judgment,
    Provenance,
    Record,
    Target,
)

MODEL_FILE = "classifier.joblib"
INFO_FILE = "diqad.json"


class DiqadInfo(Record):
    """A saved DiQAD classifier: metric:NAME@VERSION, as `metric score` names a trained metric."""

    name: str = Field(pattern=METRIC_NAME)
    dimension: str
    classifier: str
    sha256: str = ""
    n_train: int
    heldout: Figures
    heldout_dialogues: list[str]

    @property
    def version(self) -> str:
        return self.sha256[:8]

    @property
    def protocol(self) -> str:
        return f"metric:{self.name}"

    @property
    def judge_model(self) -> str:
        return f"metric:{self.name}@{self.version}"


def save_classifier(folder: Path, model: Pipeline, info: DiqadInfo) -> DiqadInfo:
    """The fitted pipeline (joblib: a pickle, so load only models you trust) and its
    description with the pipeline's sha256, written last."""
    folder.mkdir(parents=True, exist_ok=True)
    joblib.dump(model, folder / MODEL_FILE)
    info = info.model_copy(update={"sha256": file_sha256(folder / MODEL_FILE)})
    (folder / INFO_FILE).write_text(info.model_dump_json(indent=2), encoding="utf-8")
    return info


def load_classifier(folder: Path) -> tuple[DiqadInfo, Pipeline]:
    """Load a saved classifier after checking that its file is the one saved."""
    path = folder / INFO_FILE
    if not path.is_file():
        raise DialbenchError(f"{folder}: not a saved DiQAD classifier (no {INFO_FILE})")
    info = DiqadInfo.model_validate_json(path.read_text(encoding="utf-8"))
    if file_sha256(folder / MODEL_FILE) != info.sha256:
        raise DialbenchError(f"{folder / MODEL_FILE}: changed since it was saved (sha256)")
    model: Pipeline = joblib.load(folder / MODEL_FILE)
    return info, model


def score_dialogues(
    info: DiqadInfo, model: Pipeline, dialogues: Sequence[Dialogue], run: Invocation
) -> list[Judgment]:
    """One 0/1/2 judgment per dialogue, as an LLM judge of whole dialogues writes it."""
    if not dialogues:
        return []
    predicted = model.predict([splice(d) for d in dialogues]).tolist()
    configuration = JudgeConfiguration(
        options={"version": info.version, "classifier": info.classifier},
        file_hashes={MODEL_FILE: info.sha256},
    )
    provenance = Provenance(
        run_id=run.id, config_hash=run.config_hash, models={"metric": info.judge_model}
    )
    return [
        Judgment(
            protocol=info.protocol,
            judge_model=info.judge_model,
            target=Target(dialogue_id=d.id),
            configuration=configuration,
            result={info.dimension: int(value)},
            parse_status="ok",
            provenance=provenance,
        )
        for d, value in zip(dialogues, predicted, strict=True)
    ]
