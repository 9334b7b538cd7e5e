"""The versioned model directory a training run writes, and the loader that verifies it.

    MODEL/metric.json        name, dimension, version, encoder (name + package version),
                             history, strategy, the training config, training-data hash,
                             dev figures per language, the held-out dialogue ids, head files
    MODEL/heads/<lang>.npz   a head over the features (`all` serves every language): linear
                             (`w`, `b`) or a small MLP (`center`, `projection`, `w1`, `b1`,
                             `w2`, `b2`)
    MODEL/hf/                or a fine-tuned Hugging Face encoder + regression head

Heads are plain arrays (no pickle). The version is a hash of metric.json's content and the
heads' bytes, so two trained versions never share judgment ids.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from pydantic import Field, JsonValue

from dialbench.errors import DialbenchError
from dialbench.hashing import content_hash, file_sha256
from dialbench.metrics.features import feature_dim
from dialbench.schema import ALL_LANGUAGES, JudgeConfiguration, Record, base_language

FORMAT = 1
METADATA = "metric.json"
FINE_TUNED = "hf"


class HeadFile(Record):
    file: str
    sha256: str


class DevFigure(Record):
    language: str
    n_items: int
    n_dialogues: int
    pearson: float | None
    spearman: float | None


class EncoderInfo(Record):
    name: str
    version: str
    dim: int


class MetricInfo(Record):
    format: int = FORMAT
    name: str
    dimension: str
    version: str = ""
    encoder: EncoderInfo
    history: int
    objective: str
    strategy: str
    clip: tuple[float, float]
    config: dict[str, JsonValue]
    data_hash: str
    n_train: dict[str, int]
    train_seconds: float
    heads: dict[str, HeadFile]
    dev: list[DevFigure] = Field(default_factory=list)
    heldout_dialogues: list[str] = Field(default_factory=list)

    @property
    def judge_model(self) -> str:
        return f"metric:{self.name}@{self.version}"

    @property
    def protocol(self) -> str:
        return f"metric:{self.name}"

    def configuration(self) -> JudgeConfiguration:
        """What shapes a score besides the turn: the trained version, its encoder and history,
        and the sha256 of each head, so reports list a metric beside the LLM judges."""
        encoder = f"{self.encoder.name} {self.encoder.version}"
        return JudgeConfiguration(
            options={"version": self.version, "encoder": encoder, "history": self.history},
            file_hashes={head.file: head.sha256 for head in self.heads.values()},
        )

    def content_version(self) -> str:
        """Everything but the version itself and the time training took: retraining the same
        config on the same data gives the same version."""
        return content_hash(self.model_dump(mode="json", exclude={"version", "train_seconds"}))[:8]


class LinearHead:
    def __init__(self, w: np.ndarray, b: float) -> None:
        self.w, self.b = w.astype(np.float32), float(b)

    @property
    def n_features(self) -> int:
        return len(self.w)

    def predict(self, features: np.ndarray) -> np.ndarray:
        return np.asarray(features @ self.w + self.b, dtype=np.float64)

    def arrays(self) -> dict[str, np.ndarray]:
        return {"w": self.w, "b": np.array([self.b])}


class MLPHead:
    """Centre, project to a few principal directions of the standardised features, one ReLU
    layer, a linear output: a non-linear head that is still a handful of plain arrays."""

    def __init__(
        self,
        center: np.ndarray,
        projection: np.ndarray,
        w1: np.ndarray,
        b1: np.ndarray,
        w2: np.ndarray,
        b2: float,
    ) -> None:
        self.center, self.projection = center.astype(np.float32), projection.astype(np.float32)
        self.w1, self.b1 = w1.astype(np.float32), b1.astype(np.float32)
        self.w2, self.b2 = w2.astype(np.float32), float(b2)

    @property
    def n_features(self) -> int:
        return len(self.center)

    def predict(self, features: np.ndarray) -> np.ndarray:
        hidden = np.maximum((features - self.center) @ self.projection @ self.w1 + self.b1, 0)
        return np.asarray(hidden @ self.w2 + self.b2, dtype=np.float64)

    def arrays(self) -> dict[str, np.ndarray]:
        return {
            "center": self.center,
            "projection": self.projection,
            "w1": self.w1,
            "b1": self.b1,
            "w2": self.w2,
            "b2": np.array([self.b2]),
        }


Head = LinearHead | MLPHead


def blend(heads: Sequence[MLPHead], weights: Sequence[float]) -> MLPHead:
    """The weighted sum of MLP heads as one MLP head, so a metric that combines submetrics (the
    paper's VSP + NSP, or human labels + NSP) is still a handful of plain arrays: each head's
    centring and projection fold into one hidden layer, side by side."""
    layers = [head.projection @ head.w1 for head in heads]
    biases = [head.b1 - head.center @ layer for head, layer in zip(heads, layers, strict=True)]
    width = sum(layer.shape[1] for layer in layers)
    return MLPHead(
        center=np.zeros_like(heads[0].center),
        projection=np.hstack(layers),
        w1=np.eye(width, dtype=np.float32),
        b1=np.concatenate(biases),
        w2=np.concatenate([w * head.w2 for head, w in zip(heads, weights, strict=True)]),
        b2=sum(w * head.b2 for head, w in zip(heads, weights, strict=True)),
    )


def _head(arrays: Mapping[str, np.ndarray]) -> Head:
    if "projection" in arrays:
        return MLPHead(
            arrays["center"],
            arrays["projection"],
            arrays["w1"],
            arrays["b1"],
            arrays["w2"],
            float(arrays["b2"][0]),
        )
    return LinearHead(arrays["w"], float(arrays["b"][0]))


class MetricModel:
    def __init__(
        self, info: MetricInfo, heads: dict[str, Head], folder: Path | None = None
    ) -> None:
        self.info, self.heads, self.folder = info, heads, folder

    @property
    def fine_tuned(self) -> bool:
        return self.info.encoder.name == FINE_TUNED

    def head_for(self, language: str) -> Head | None:
        return self.heads.get(base_language(language)) or self.heads.get(ALL_LANGUAGES)

    def predict(self, features: np.ndarray, language: str) -> np.ndarray | None:
        head = self.head_for(language)
        if head is None:
            return None
        low, high = self.info.clip
        clipped: np.ndarray = np.clip(head.predict(features), low, high)
        return clipped


def save_model(folder: Path, info: MetricInfo, heads: dict[str, Head]) -> MetricInfo:
    """Write the heads, then metric.json with their hashes and the version (written last, so a
    killed save leaves no loadable half-model)."""
    (folder / "heads").mkdir(parents=True, exist_ok=True)
    files = dict(info.heads)
    for language, head in sorted(heads.items()):
        path = folder / "heads" / f"{language}.npz"
        np.savez(path, allow_pickle=False, **head.arrays())
        files[language] = HeadFile(file=f"heads/{language}.npz", sha256=file_sha256(path))
    info = info.model_copy(update={"heads": files})
    info = info.model_copy(update={"version": info.content_version()})
    temporary = folder / f"{METADATA}.tmp"
    temporary.write_text(info.model_dump_json(indent=2), encoding="utf-8")
    temporary.replace(folder / METADATA)
    return info


def load_model(folder: str | Path) -> MetricModel:
    """Load and verify a model directory: its format, version and every head's sha256."""
    folder = Path(folder)
    path = folder / METADATA
    if not path.is_file():
        raise DialbenchError(f"{folder}: not a trained metric (no {METADATA})")
    try:
        info = MetricInfo.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, json.JSONDecodeError) as bad:
        raise DialbenchError(f"{path}: not a readable metric description ({bad})") from None
    if info.format != FORMAT:
        raise DialbenchError(f"{path}: format {info.format}, this dialbench reads {FORMAT}")
    if info.content_version() != info.version:
        raise DialbenchError(f"{path}: content does not match its version {info.version}")
    heads = {}
    for language, head in info.heads.items():
        head_path = folder / head.file
        if not head_path.is_file() or file_sha256(head_path) != head.sha256:
            raise DialbenchError(f"{head_path}: missing or changed since training (sha256)")
        if head_path.suffix != ".npz":
            continue
        with np.load(head_path, allow_pickle=False) as arrays:
            loaded = _head(arrays)
        if loaded.n_features != feature_dim(info.encoder.dim):
            raise DialbenchError(
                f"{head_path}: weights for {loaded.n_features} features do not fit the encoder"
            )
        heads[language] = loaded
    return MetricModel(info, heads, folder)
