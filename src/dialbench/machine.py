"""The processor a run computed on, and the kernels its local models ran, as its provenance says.

llama.cpp's kernels differ by instruction set: AVX-512 against AVX2, NEON against SVE sum in
other orders, so a token's probability can differ in its last digits and a sampled dialogue,
once one token differs, goes its own way. Which kernels run is fixed when llama.cpp is built
(for the build machine's processor, unless told otherwise), so a run's figures are reproducible
with the same build features, whatever the processor's name: the run record says both.
"""

from __future__ import annotations

import platform
import re
import sys
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


def computed_on() -> str:
    """`processor()`, and the build features of the llama.cpp this process loaded, if it loaded
    one (`; llama.cpp 0.3.36: AVX AVX2 F16C FMA ...`): never imported for this, so a command
    that ran no local model pays nothing, and says nothing of kernels it did not use."""
    llama_cpp = sys.modules.get("llama_cpp")
    version = getattr(llama_cpp, "__version__", None)  # its last line: another thread of a
    if llama_cpp is None or version is None:  # pipeline may be importing it for a model not run
        return processor()
    features = re.findall(r"(\w+) = 1", llama_cpp.llama_print_system_info().decode())
    return f"{processor()}; llama.cpp {version}: {' '.join(features)}"
