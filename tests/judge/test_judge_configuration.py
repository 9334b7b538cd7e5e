"""A judgment's identity includes everything that shapes its answer: changing a setting, an
option, or a prompt or data file makes new calls and new judgments beside the old ones, while
concurrency and batch size change nothing. The report and metaeval name each configuration."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any

import pytest
from scripted import dialogue, scripted_judge

from dialbench import yaml_records
from dialbench.issue_labels import load_issue_labels
from dialbench.judge.api import judge
from dialbench.judge.config import JudgeConfig
from dialbench.metaeval.api import configuration_notes
from dialbench.prompts import load_prompt
from dialbench.ratings import from_store
from dialbench.report.config import ReportConfig
from dialbench.report.writer import report
from dialbench.schema import Judgment
from dialbench.store import RunStore
from tests.scripted_models import ScriptedModel

DIALOGUES = [dialogue("well-formed", language) for language in ("en", "zh", "de")]


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    with RunStore.open(tmp_path / "run") as store, store.invocation("import") as run:
        store.add(DIALOGUES, run)
    return tmp_path / "run"


@pytest.fixture
def holistic_judge() -> ScriptedModel:
    return scripted_judge("holistic-judge", {"well-formed": ['{"reason": "ok", "quality": 2}']})


def judge_with(run_dir: Path, judge_model: ScriptedModel, **fields: Any) -> tuple[int, int]:
    """Judge the run (holistic unless `protocol` is given); returns the calls this made and
    the judgments stored afterwards."""
    model_fields = fields.pop("model", {})
    config = JudgeConfig.model_validate(
        {"protocol": "holistic", "judges": [judge_model.config(**model_fields)], **fields}
    )
    before = len(judge_model.requests)
    judge(config, run_dir, quiet=True)
    with RunStore.open(run_dir) as store:
        return len(judge_model.requests) - before, store.count(Judgment)


@pytest.mark.parametrize(
    ("changed", "calls"),
    [
        ({"options": {"few_shot": "true"}}, 3),
        ({"settings": {"temperature": 0.5}}, 3),
        ({"settings": {"max_tokens": 99}}, 3),
        ({"settings": {"reasoning_effort": "low"}}, 3),
        ({"model": {"structured_output": "prompt"}}, 3),
        # Re-asks change the questions only where an answer needs one, and none did here: the
        # same first questions come from the cache, under a new configuration.
        ({"settings": {"max_reasks": 0}}, 0),
    ],
)
def test_a_changed_setting_makes_new_judgments_beside_the_old(
    run_dir: Path, holistic_judge: ScriptedModel, changed: dict[str, Any], calls: int
) -> None:
    assert judge_with(run_dir, holistic_judge) == (3, 3)
    assert judge_with(run_dir, holistic_judge) == (0, 3)
    assert judge_with(run_dir, holistic_judge, **changed) == (calls, 6)
    assert judge_with(run_dir, holistic_judge, **changed) == (0, 6)


def test_concurrency_store_every_and_more_samples_reuse_what_is_judged(
    run_dir: Path, holistic_judge: ScriptedModel
) -> None:
    assert judge_with(run_dir, holistic_judge) == (3, 3)
    assert judge_with(run_dir, holistic_judge, store_every=1, model={"max_concurrency": 1}) == (
        0,
        3,
    )
    settings = {"samples": 2, "temperature": 0.0}
    assert judge_with(run_dir, holistic_judge, settings=settings) == (3, 6)


class _Edited:
    """A package folder as `importlib.resources` shows it, with one file's text replaced."""

    def __init__(self, folder: Traversable, name: str, text: str) -> None:
        self.folder, self.name, self.text = folder, name, text

    def __truediv__(self, name: str) -> Traversable | _EditedFile:
        return _EditedFile(self.text) if name == self.name else self.folder / name


class _EditedFile:
    def __init__(self, text: str) -> None:
        self.text = text

    def read_text(self, encoding: str = "utf-8") -> str:
        return self.text


@pytest.fixture
def edit_file(
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Callable[[str, str, str, str], None]]:
    """Make a package's file read as edited text, as if a user had changed it."""
    original = resources.files
    caches = (load_prompt, load_issue_labels, yaml_records._load)  # every packaged file read once

    def edit(package: str, name: str, old: str, new: str) -> None:
        text = (original(package) / name).read_text(encoding="utf-8")
        assert old in text
        text = text.replace(old, new)

        def files(asked: Any) -> Any:
            found = original(asked)
            return _Edited(found, name, text) if asked == package else found

        monkeypatch.setattr(resources, "files", files)
        for cached in caches:
            cached.cache_clear()

    yield edit
    for cached in caches:
        cached.cache_clear()


@pytest.mark.parametrize(
    ("protocol", "package", "name", "old", "calls"),
    [
        ("holistic", "dialbench.judge.protocols.holistic", "judge_holistic.txt", "\n", 3),
        ("holistic", "dialbench.prompts", "judge_dialogue.txt", "\n", 3),
        # Only a re-ask shows this prompt, and none was needed: the same requests are answered
        # from the cache, and the judgments under the new configuration are new records.
        ("holistic", "dialbench.prompts", "llm_reask.txt", "\n", 0),
        ("issues", "dialbench.judge.protocols.issues", "judge_issues.txt", "\n", 3),
        ("issues", "dialbench", "issue_labels.yaml", "Outputs unclear or confusing", 3),
    ],
)
def test_an_edited_prompt_or_data_file_makes_new_judgments(
    run_dir: Path,
    edit_file: Callable[[str, str, str, str], None],
    protocol: str,
    package: str,
    name: str,
    old: str,
    calls: int,
) -> None:
    answers = {
        "holistic": ['{"reason": "ok", "quality": 2}'],
        "issues": [
            '{"issues": {"uninterpretable": false, "unsafe": false, "lacks_empathy": false, '
            '"lacks_commonsense": false, "repetitive": false, "incoherent": false, '
            '"irrelevant": false, "non_factual": false}, "comments": {}, "overall": 4}'
        ],
    }
    model = scripted_judge(f"{protocol}-judge", {"well-formed": answers[protocol]})
    assert judge_with(run_dir, model, protocol=protocol) == (3, 3)
    edit_file(package, name, old, old.replace("\n", " Be strict.\n", 1) + " (edited)")
    assert judge_with(run_dir, model, protocol=protocol) == (calls, 6)
    assert judge_with(run_dir, model, protocol=protocol) == (0, 6)


def test_the_report_and_metaeval_name_each_configuration(
    run_dir: Path, holistic_judge: ScriptedModel
) -> None:
    judge_with(run_dir, holistic_judge)
    judge_with(run_dir, holistic_judge, options={"few_shot": True})
    with RunStore.open(run_dir) as store:
        fingerprints = {
            j.configuration.fingerprint for j in store.records(Judgment) if j.configuration
        }
        ratings, judgments = from_store(store)
    assert len(fingerprints) == 2
    names = {f"scripted:holistic-judge [{fingerprint}]" for fingerprint in fingerprints}
    assert {r.rater for r in ratings} == names
    notes = configuration_notes(judgments)
    assert len(notes) == 2
    assert all(any(name in note for note in notes) for name in names)
    assert any("options few_shot=True" in note for note in notes)
    written = report(ReportConfig(), run_dir)
    configurations = (written.folder / "tables" / "configurations.csv").read_text()
    assert "few_shot=True" in configurations
    assert "few_shot=False" in configurations
    holistic = (written.folder / "tables" / "holistic_distribution.csv").read_text()
    assert all(name in holistic for name in names)
