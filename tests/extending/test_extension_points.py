"""Every extension point is one file plus one registry line: a test adds one of each — a model
backend, a pipeline stage, an executor, a protocol's report sections — and runs it through the
real commands; and a plugin package adds a backend through its entry point, found without any
edit of dialbench. (Protocols: tests/judge/test_judge_extension.py; encoders, QE estimators and
DiQAD classifiers: tests/metrics; file formats: tests/test_formats.py.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import ClassVar, Literal

import pandas as pd
import pytest
import yaml

from dialbench.errors import DialbenchError
from dialbench.judge.registry import PROTOCOLS
from dialbench.llm.runner import Runner
from dialbench.llm.specs import BACKENDS
from dialbench.pipeline.config import load_pipeline
from dialbench.pipeline.execute import run_pipeline
from dialbench.pipeline.executors import EXECUTORS, ExecutorOptions
from dialbench.pipeline.graph import Node
from dialbench.pipeline.registry import STAGES
from dialbench.pipeline.stage import DIALOGUES, FILES, Stage, StageResult
from dialbench.registry import BUILT_IN, REGISTERED, Registry
from dialbench.report.config import ReportConfig
from dialbench.report.context import ReportContext
from dialbench.report.protocols import PROTOCOL_SECTIONS
from dialbench.report.section import Section, write_table
from dialbench.report.writer import report
from dialbench.schema import Dialogue, Judgment
from dialbench.store import RunStore
from tests.conftest import DIALBENCH, Register
from tests.extending.preference import PreferenceProtocol, chat
from tests.extending.upper_backend import UpperAPI

PLUGIN = "tests.extending.upper_backend:UpperAPI"


def test_a_backend_is_one_class_and_one_line(tmp_path: Path, register: Register) -> None:
    register(BACKENDS, "upper", PLUGIN)
    assert (BACKENDS.origin("upper"), BACKENDS.origin("local")) == (REGISTERED, BUILT_IN)
    with Runner(tmp_path, quiet=True) as runner:
        model = runner.model("upper:any", role="assistant")
        assert model.chat_sync([{"role": "user", "content": "grüß gott"}]).text == "GRÜSS GOTT"
        assert model.chat_sync([{"role": "user", "content": "grüß gott"}]).cached


class CountStage(Stage):
    """A stage as a plugin writes one: its settings, what it reads and writes, and its run."""

    stage: Literal["count"]
    language: str

    def reads(self) -> frozenset[str]:
        return frozenset({DIALOGUES})

    def writes(self) -> frozenset[str]:
        return frozenset({FILES})

    def execute(self, run_dir: Path) -> StageResult:
        with RunStore.open(run_dir, create=False) as store:
            count = sum(1 for _ in store.records(Dialogue, language=self.language))
        return StageResult(f"{count} dialogue(s) in {self.language}")


class InlineExecutor:
    """An executor as a plugin writes one: where each stage runs (here, in the caller)."""

    ran: ClassVar[list[str]] = []

    def __init__(self, options: ExecutorOptions) -> None:
        self.options = options

    def run(self, node: Node, run_dir: Path) -> StageResult:
        self.ran.append(node.name)
        return node.stage.execute(run_dir)

    def stop(self) -> None:
        """Nothing in flight to stop."""

    def close(self) -> None:
        """Nothing held."""


def test_a_stage_and_an_executor_are_one_class_and_one_line_each(
    tmp_path: Path, register: Register
) -> None:
    register(STAGES, "count", CountStage)
    register(EXECUTORS, "inline", InlineExecutor)
    path = tmp_path / "pipeline.yaml"
    stages = [
        {"stage": "import", "example": "multilingual_dialogues"},
        {"stage": "count", "language": "zh"},
    ]
    path.write_text(yaml.safe_dump({"run": str(tmp_path / "run"), "stages": stages}))
    config = load_pipeline(path)
    executor = EXECUTORS.load("inline")(ExecutorOptions())
    done = run_pipeline(config, tmp_path / "run", executor=executor)
    assert [s.status for s in done.stages] == ["ran", "ran"], done.stages
    assert done.stages[1].summary.endswith("dialogue(s) in zh")
    assert not done.stages[1].summary.startswith("0 ")
    assert InlineExecutor.ran == ["import", "count"]


def winner_counts(frame: pd.DataFrame, context: ReportContext) -> list[Section]:
    """A protocol's report sections as a plugin writes them."""
    counts = frame.groupby("winner").size().rename("judgments").reset_index()
    return [
        Section(
            key="preference",
            title="Preferred chatbot",
            tables=[write_table(context.folder, "preference", "Verdicts", counts)],
        )
    ]


def stored_pair(run: Path) -> Path:
    """A run holding two chatbots' dialogues from one seed: one pair to judge, in both orders."""
    with RunStore.open(run) as store, store.invocation("test", {}) as record:
        store.add(
            [chat("picnic", "bot-a", "Bring a blanket."), chat("picnic", "bot-b", "No.")], record
        )
    return run


def test_a_protocol_and_its_report_sections_are_one_line_each(
    tmp_path: Path, register: Register
) -> None:
    register(PROTOCOLS, "preference", PreferenceProtocol)
    register(PROTOCOL_SECTIONS, "preference", winner_counts)
    register(BACKENDS, "upper", PLUGIN)
    from dialbench.judge.api import judge
    from dialbench.judge.config import JudgeConfig
    from dialbench.llm.specs import ModelConfig

    run = stored_pair(tmp_path / "run")
    config = JudgeConfig(protocol="preference", judges=[ModelConfig(spec="upper:judge")])
    assert judge(config, run, quiet=True).judges[0].ok == 2  # both orders
    written = report(ReportConfig(), run)
    [own] = [s for s in written.sections if s.key == "preference"]
    assert (run / "report" / own.tables[0].csv).read_text().splitlines() == [
        "winner,judgments",
        "tie,2",
    ]


def judge_pipeline(path: Path, judge: str) -> Path:
    """A pipeline file judging the stored pairs with one plugin judge, given as written."""
    path.write_text(
        f"run: {path.parent / 'run'}\n"
        "stages:\n"
        "  - stage: judge\n"
        "    protocol: preference\n"
        "    judges:\n"
        f"{judge}"
    )
    return path


def test_a_plugin_backend_takes_its_own_settings_from_a_config_file(
    tmp_path: Path, register: Register
) -> None:
    register(PROTOCOLS, "preference", PreferenceProtocol)
    register(BACKENDS, "upper", PLUGIN)
    run = stored_pair(tmp_path / "run")
    path = judge_pipeline(
        tmp_path / "pipeline.yaml", "      - {spec: upper:judge, verdict: first}\n"
    )
    done = run_pipeline(load_pipeline(path), run)
    assert [s.status for s in done.stages] == ["ran"], done.stages
    with RunStore.open(run, create=False) as store:
        verdicts = [j.result["winner"] for j in store.records(Judgment)]
    assert verdicts == ["first", "first"]  # both orders, as the model's setting says


def test_a_setting_the_plugin_backend_does_not_take_is_an_error_at_its_line(
    tmp_path: Path, register: Register
) -> None:
    register(PROTOCOLS, "preference", PreferenceProtocol)
    register(BACKENDS, "upper", PLUGIN)
    path = judge_pipeline(
        tmp_path / "pipeline.yaml", "      - spec: upper:judge\n        verdikt: first\n"
    )
    with pytest.raises(DialbenchError) as raised:
        load_pipeline(path)
    assert str(raised.value) == (
        f"{path}:7: field 'stages.0.judge.judges.0.verdikt': 'verdikt' is not a setting of "
        "upper: models (they take verdict)"
    )


def test_a_plugin_package_adds_a_backend_through_its_entry_point(tmp_path: Path) -> None:
    """No edit of dialbench: an installed distribution declares the entry point, and both the
    registry and the real `dialbench` command find it."""
    site = tmp_path / "site"
    info = site / "dialbench_upper-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: dialbench-upper\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[dialbench.backends]\nupper = {PLUGIN}\n")
    paths = [str(site), str(Path.cwd()), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))}
    done = subprocess.run(
        [str(DIALBENCH), "chat", "upper:bot", "bonjour à tous"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "BONJOUR À TOUS"
    listed = subprocess.run(
        [str(DIALBENCH), "models"],
        capture_output=True,
        text=True,
        env=env | {"COLUMNS": "200"},
        timeout=120,
        check=False,
    )
    assert listed.returncode == 0, listed.stderr
    [row] = [line for line in listed.stdout.splitlines() if "│ upper " in line]
    assert "plugin dialbench-upper 0.1" in row
    assert "A model backend as a plugin writes one" in row
    sys.path.insert(0, str(site))
    try:
        found: Registry[type[UpperAPI]] = Registry("backend", {}, group="backends")
        assert found.names() == ["upper"]
        assert found.load("upper") is UpperAPI
    finally:
        sys.path.remove(str(site))
