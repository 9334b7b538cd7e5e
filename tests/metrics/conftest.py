"""Shared fixtures of the metric tests."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from tests.conftest import SHARED_DATA

DBDC_ZIP = SHARED_DATA / "dbdc3_breakdown_ja_en.zip"
PER_SET = 8  # dialogues from each chatbot's set: 32 English, 24 Japanese


@pytest.fixture(scope="module")
def dbdc_slice(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dbdc") / "slice.zip"
    taken: dict[str, int] = {}
    with zipfile.ZipFile(DBDC_ZIP) as source, zipfile.ZipFile(out, "w") as target:
        for name in sorted(source.namelist()):
            if not name.endswith(".log.json") or "/eval/" not in name:
                continue
            folder = name.rsplit("/", 1)[0]
            if taken.get(folder, 0) < PER_SET:
                taken[folder] = taken.get(folder, 0) + 1
                target.writestr(name, source.read(name))
    return out
