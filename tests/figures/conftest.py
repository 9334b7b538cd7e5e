"""The known runs (known_versions.py), made once per test module."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.figures.known_versions import make_run, repetitive_in_german


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("versions")
    return {
        "baseline": make_run(folder / "baseline"),
        "worse": make_run(folder / "worse", repetitive_in_german),
        "equal": make_run(folder / "equal"),
        "other-judge": make_run(folder / "other-judge", judge="judge-y"),
        "other-bot": make_run(folder / "other-bot", chatbot="python:new_bot:reply"),
    }
