"""The processor a run records: its name and the flags local models' kernels are chosen by."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from dialbench import machine

X86 = """processor\t: 0
model name\t: AMD EPYC 7B13
flags\t\t: fpu sse sse2 avx avx2 fma f16c bmi2
"""
ARM = """processor\t: 0
Features\t: fp asimd evtstrm aes asimddp sve
CPU implementer\t: 0x41
"""


@pytest.mark.parametrize(
    ("cpuinfo", "expected"),
    [(X86, "AMD EPYC 7B13 (avx avx2 fma f16c)"), (ARM, "aarch64 (asimd asimddp sve)")],
)
def test_the_processor_is_named_with_its_kernel_flags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cpuinfo: str, expected: str
) -> None:
    (tmp_path / "cpuinfo").write_text(cpuinfo, encoding="utf-8")
    monkeypatch.setattr(machine, "CPUINFO", tmp_path / "cpuinfo")
    monkeypatch.setattr(machine.platform, "processor", lambda: "")
    monkeypatch.setattr(machine.platform, "machine", lambda: "aarch64")
    machine.processor.cache_clear()
    try:
        assert machine.processor() == expected
    finally:
        machine.processor.cache_clear()


def test_a_run_that_loaded_llama_cpp_names_its_build_features(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(sys.modules, "llama_cpp", raising=False)
    assert machine.computed_on() == machine.processor()  # no local model ran: no kernels named
    built = b"CPU : SSE3 = 1 | AVX = 1 | AVX2 = 1 | AVX512 = 0 | FMA = 1 | "
    fake = SimpleNamespace(__version__="0.3.36", llama_print_system_info=lambda: built)
    monkeypatch.setitem(sys.modules, "llama_cpp", fake)
    assert machine.computed_on() == f"{machine.processor()}; llama.cpp 0.3.36: SSE3 AVX AVX2 FMA"


def test_llama_cpp_being_imported_by_another_thread_is_not_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A pipeline's import stage stored its run record while a judge stage's thread was still
    importing llama.cpp: the half-made module had no llama_print_system_info, and the import
    failed. Until the module is whole, no model of this process has run."""
    monkeypatch.setitem(sys.modules, "llama_cpp", SimpleNamespace())  # __init__ not yet done
    assert machine.computed_on() == machine.processor()
