"""`comet`: COMET-QE / CometKiwi as a quality estimator, for users who have `unbabel-comet` and a
checkpoint: `pip install 'dialbench[comet]'`. No checkpoint ships in any package, so none is
bundled; the model loads on first use, from a local checkpoint file or by its hub name.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dialbench.errors import DialbenchError
from dialbench.metrics.qe.estimator import QEResources
from dialbench.metrics.translate import TranslationRequest

BATCH_SIZE = 16


def _comet() -> Any:
    try:
        import comet
    except ImportError:
        raise DialbenchError(
            "qe: comet needs the unbabel-comet package (pip install 'dialbench[comet]')"
        ) from None
    return comet


class CometQualityEstimator:
    """Reference-free COMET: the model sees the source and the translation (no reference)."""

    DEFAULT = "Unbabel/wmt22-cometkiwi-da"

    def __init__(self, checkpoint: str, batch_size: int = BATCH_SIZE) -> None:
        self.checkpoint, self.batch_size = checkpoint, batch_size
        self._model: Any = None

    @classmethod
    def from_resources(cls, resources: QEResources) -> CometQualityEstimator:
        """The config's `qe_model`, else CometKiwi."""
        return cls(resources.model or cls.DEFAULT)

    def model(self) -> Any:
        """The loaded checkpoint: a .ckpt file as it is, else a model name to download."""
        if self._model is None:
            comet = _comet()
            path = Path(self.checkpoint)
            checkpoint = path if path.is_file() else comet.download_model(self.checkpoint)
            self._model = comet.load_from_checkpoint(str(checkpoint))
        return self._model

    def score(
        self, requests: Sequence[TranslationRequest], translations: Sequence[str]
    ) -> np.ndarray:
        """All language pairs in one predict call: the model reads no language codes."""
        if not requests:
            return np.zeros(0)
        data = [{"src": r.text, "mt": t} for r, t in zip(requests, translations, strict=True)]
        output = self.model().predict(data, batch_size=self.batch_size, gpus=0)
        return np.asarray(output.scores, dtype=np.float64)
