"""The processor a run records: its name and the flags local models' kernels are chosen by."""

from __future__ import annotations

from pathlib import Path

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
