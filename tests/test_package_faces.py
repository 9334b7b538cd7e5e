"""Each feature package shows its face: its config, its call and its result type, exported from
its `__init__.py` (docs/python-api.md imports every feature so) and imported only when first
asked for, so that a module naming a feature's config does not load the feature."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

FACES = {
    "dialbench.judge": ["JudgeConfig", "judge", "JudgeResult"],
    "dialbench.simulate": ["SimulationConfig", "simulate", "SimulationResult"],
    "dialbench.botchat": ["SelfChatConfig", "SelfChatResult"],
    "dialbench.calibrate": ["CalibrateConfig", "calibrate", "CalibrateResult"],
    "dialbench.curate": ["CurateConfig", "curate", "CurateResult"],
    "dialbench.panel": ["PanelConfig", "panel", "PanelResult"],
    "dialbench.metaeval": ["MetaevalConfig", "metaeval", "MetaevalResult"],
    "dialbench.metrics": ["MetricScoreConfig", "score_metric", "MetricScoreResult"],
    "dialbench.report": ["ReportConfig", "report", "ReportResult"],
    "dialbench.llm": ["ModelConfig", "Runner", "Model"],
    "dialbench": ["Dialogue", "RunStore", "import_file", "DialbenchError", "__version__"],
}


@pytest.mark.parametrize("package", FACES)
def test_a_package_exports_what_its_modules_define(package: str) -> None:
    module = importlib.import_module(package)
    assert set(FACES[package]) <= set(module.__all__)
    for name in module.__all__:
        exported = getattr(module, name)
        if not isinstance(exported, str):  # __version__ is a string, defined where it is
            assert exported.__module__.startswith(package), (name, exported.__module__)
    with pytest.raises(AttributeError, match=f"module {package!r} has no attribute 'nope'"):
        module.nope  # noqa: B018


@pytest.mark.parametrize("package", [p for p in FACES if p != "dialbench"])
def test_importing_a_packages_config_does_not_load_its_call(package: str) -> None:
    """`import dialbench.judge.config` runs the package's `__init__.py`, which imports none of
    the modules behind its exports."""
    config = "specs" if package == "dialbench.llm" else "config"
    script = f"import sys, {package}.{config}; print(*sorted(sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    loaded = set(done.stdout.split())
    assert not {f"{package}.api", f"{package}.writer", f"{package}.runner"} & loaded
