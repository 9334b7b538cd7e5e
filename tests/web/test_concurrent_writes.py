"""No lost write: 20 annotators saving labels at once against `dialbench serve`, then every
acknowledged write is in the store. (The benchmark runs it for two minutes and prints rates.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from annotator_load import drive, lost_writes, make_load_run
from serve_process import serve

pytestmark = pytest.mark.slow
ANNOTATORS, SECONDS = 20, 20


def test_every_acknowledged_write_is_stored(tmp_path: Path) -> None:
    load = make_load_run(tmp_path / "run", ANNOTATORS, dialogues=12)
    with serve(load.path) as serving:
        result = drive(serving.base, load, SECONDS)
    assert result.failures == []
    assert len({name for name, _ in result.acknowledged}) == ANNOTATORS
    assert result.writes >= ANNOTATORS * 10
    assert lost_writes(load, result) == []
