"""The DBDC3 breakdown data: real human-chatbot dialogues with 30 annotators per system turn."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from dialbench.schema import Annotation, Dialogue
from dialbench.store import RunStore
from tests.conftest import SHARED_DATA, RunCli

DBDC_ZIP = SHARED_DATA / "dbdc3_breakdown_ja_en.zip"


@pytest.fixture(scope="module")
def small_dbdc(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A few real dialogues: one English set in both releases, and one Japanese set."""
    wanted = ("dbdc3/en/eval/YI_50/", "dbdc3_revised/en/eval/YI_50/", "dbdc3/ja/eval/DCM/")
    out = tmp_path_factory.mktemp("dbdc") / "small.zip"
    with zipfile.ZipFile(DBDC_ZIP) as source, zipfile.ZipFile(out, "w") as target:
        taken: dict[str, int] = {}
        for name in sorted(source.namelist()):
            prefix = next((w for w in wanted if w in name and name.endswith(".log.json")), None)
            if prefix and taken.get(prefix, 0) < 3:
                taken[prefix] = taken.get(prefix, 0) + 1
                target.writestr(name, source.read(name))
    return out


def test_the_whole_release_imports_as_dialogues(cli: RunCli, tmp_path: Path) -> None:
    report = json.loads(cli("import", DBDC_ZIP, "--run", tmp_path, "--json").stdout)
    assert report["added"] == 765  # 615 English (revised where revised) + 150 Japanese
    with RunStore.open(tmp_path) as store:
        languages = dict(store.group_counts(Dialogue, "language"))
        empty = [
            t
            for d in store.records(Dialogue, source="dbdc3")
            for t in d.turns
            if not t.text.strip()
        ]
    assert languages == {"en": 615, "ja": 150}
    assert empty, "DBDC3 has empty chatbot turns; they must import, not be rejected"


def test_annotations_follow_the_revised_release(
    cli: RunCli, tmp_path: Path, small_dbdc: Path
) -> None:
    cli("import", small_dbdc, "--run", tmp_path)
    cli("import", small_dbdc, "--records", "annotations", "--run", tmp_path)
    with RunStore.open(tmp_path) as store:
        dialogues = list(store.records(Dialogue))
        annotations = list(store.records(Annotation))
    assert len(dialogues) == 6
    assert {d.metadata["release"] for d in dialogues if d.language == "en"} == {"dbdc3_revised"}
    assert {d.language for d in dialogues} == {"en", "ja"}
    by_turn: dict[tuple[str, int | None], int] = {}
    for a in annotations:
        assert a.labels["breakdown"] in ("O", "T", "X")
        key = (a.target.dialogue_id, a.target.turn_index)
        by_turn[key] = by_turn.get(key, 0) + 1
    assert set(by_turn.values()) == {30}
    for dialogue in dialogues:
        for dialogue_id, turn_index in by_turn:
            if dialogue_id == dialogue.id:
                assert turn_index is not None
                assert dialogue.turns[turn_index].role == "assistant"


def test_a_zip_without_dbdc_files(cli: RunCli, tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "other.zip", "w") as archive:
        archive.writestr("readme.txt", "hello")
    done = cli("import", tmp_path / "other.zip", ok=False)
    assert done.returncode == 1
    assert "no DBDC3 dialogue files" in done.stderr
