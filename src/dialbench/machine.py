"""The processor a run computed on, as its provenance says.

The local models' kernels differ by instruction set: AVX-512 against AVX2, NEON against SVE sum
in other orders, so a token's probability can differ in its last digits and a sampled dialogue,
once one token differs, goes its own way. A run's figures are reproducible on a processor with
the same instruction sets, and the run record says which those were.
"""

from __future__ import annotations

import platform
from functools import cache
from pathlib import Path

CPUINFO = Path("/proc/cpuinfo")
# The flags (Linux's names) for which llama.cpp and torch choose kernels of their own.
KERNEL_FLAGS = (
    "avx",
    "avx2",
    "fma",
    "f16c",
    "avx512f",
    "avx512_vnni",
    "avx512_bf16",
    "amx_tile",
    "asimd",
    "asimddp",
    "sve",
)


def _cpuinfo_field(lines: list[str], *names: str) -> str | None:
    for line in lines:
        key, colon, value = line.partition(":")
        if colon and key.strip() in names:
            return value.strip()
    return None


@cache
def processor() -> str:
    """`Intel(R) Xeon(R) Processor (avx avx2 fma f16c)`: the model name and the kernel flags it
    has; the platform's name for the processor where /proc/cpuinfo does not exist."""
    lines = CPUINFO.read_text(errors="replace").splitlines() if CPUINFO.exists() else []
    name = _cpuinfo_field(lines, "model name", "Model", "Hardware")
    name = name or platform.processor() or platform.machine() or "unknown processor"
    flags = set((_cpuinfo_field(lines, "flags", "Features") or "").split())
    kernels = [flag for flag in KERNEL_FLAGS if flag in flags]
    return f"{name} ({' '.join(kernels)})" if kernels else name
