"""Every model of a job is checked before the job's first call: a missing key, package, model
file or server stops the job at once, naming each model, and nothing is stored."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path
from typing import ClassVar

import pytest
import yaml

from dialbench.errors import DialbenchError
from dialbench.judge.api import judge
from dialbench.judge.config import JudgeConfig
from dialbench.llm.base import Completion, ModelAPI, Request
from dialbench.llm.preflight import ModelsUnavailable, model_problems, models_in
from dialbench.llm.specs import BACKENDS, ModelConfig
from dialbench.pipeline.config import load_pipeline
from dialbench.pipeline.execute import run_pipeline
from dialbench.pipeline.plan import plan_pipeline
from dialbench.registry import Requirement
from dialbench.simulate.api import simulate
from dialbench.simulate.config import SimulationConfig
from dialbench.store import RunStore
from tests.conftest import DIALBENCH, Register
from tests.scripted_models import ScriptedModel

USER = ScriptedModel("preflight-user", lambda _request: "Hello there, how are you?")


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class NeedsMissingPackage(ModelAPI):
    requires: ClassVar[Requirement | None] = Requirement("dialbench_no_such_package", "nothing")

    async def generate(self, request: Request) -> Completion:
        raise AssertionError("never called")


def simulation(chatbot: str) -> SimulationConfig:
    return SimulationConfig.model_validate(
        {
            "languages": ["en"],
            "seeds": {"contexts": 1},
            "user": {"models": [USER.config().spec], "form": "chat"},
            "validator": {"model": None},
            "chatbots": {"models": [chatbot]},
            "max_utterances": 2,
            "filter": {"rules": False},
        }
    )


def test_each_kind_of_problem_is_found_without_a_call(
    monkeypatch: pytest.MonkeyPatch, register: Register, tmp_path: Path
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    register(BACKENDS, "needs-missing", NeedsMissingPackage)
    port = closed_port()
    specs = [
        "openai:gpt-4.1-mini",
        f"openai-compat:http://127.0.0.1:{port}/v1#m",
        f"pool:http://127.0.0.1:{port}/v1,http://127.0.0.1:{closed_port()}/v1#m",
        f"local:{tmp_path / 'missing.gguf'}",
        "needs-missing:x",
        USER.config().spec,
    ]
    problems = model_problems(ModelConfig(spec=spec) for spec in specs)
    said = {problem.spec: problem.problem for problem in problems}
    assert set(said) == set(specs[:-1])  # the scripted model can answer
    assert "OPENAI_API_KEY" in said["openai:gpt-4.1-mini"]
    assert f"cannot connect to 127.0.0.1:{port}" in said[specs[1]]
    assert "no replica of pool:m is reachable" in said[specs[2]]
    assert "does not exist" in said[specs[3]]
    assert "pip install 'dialbench[nothing]'" in said["needs-missing:x"]


def test_models_are_found_at_any_depth_of_a_config() -> None:
    config = simulation("openai:gpt-4.1-mini")
    assert [m.spec for m in models_in(config)] == [USER.config().spec, "openai:gpt-4.1-mini"]


def test_simulate_without_the_chatbots_key_stops_before_the_first_user_turn(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    calls = len(USER.requests)
    with pytest.raises(ModelsUnavailable, match="OPENAI_API_KEY"):
        simulate(simulation("openai:gpt-4.1-mini"), tmp_path / "run", quiet=True)
    assert len(USER.requests) == calls
    assert not (tmp_path / "run").exists()


def test_judge_against_an_unreachable_server_stops_at_once(
    example_jsonl: Path, tmp_path: Path
) -> None:
    subprocess.run([str(DIALBENCH), "import", str(example_jsonl), "-r", tmp_path], check=True)
    judge_spec = f"openai-compat:http://127.0.0.1:{closed_port()}/v1#j"
    config = JudgeConfig.model_validate({"protocol": "holistic", "judges": [{"spec": judge_spec}]})
    with pytest.raises(ModelsUnavailable, match="cannot connect"):
        judge(config, tmp_path)
    with RunStore.open(tmp_path) as store:
        assert [run.command for run in store.invocations()] == [
            "import"
        ]  # the judge started nothing


def pipeline_file(tmp_path: Path) -> Path:
    """A pipeline whose simulation could run, and whose judge stage could not."""
    data = {
        "run": str(tmp_path / "run"),
        "stages": [
            {"stage": "import", "example": "multilingual_dialogues"},
            {**simulation(USER.config().spec).model_dump(mode="json"), "stage": "simulate"},
            {"stage": "judge", "protocol": "holistic", "judges": ["openai:gpt-4.1-mini"]},
        ],
    }
    path = tmp_path / "pipeline.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_a_pipeline_checks_every_stage_before_the_first(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    calls = len(USER.requests)
    with pytest.raises(ModelsUnavailable, match=r"openai:gpt-4.1-mini \(stage judge\)"):
        run_pipeline(load_pipeline(pipeline_file(tmp_path)), tmp_path / "run")
    assert len(USER.requests) == calls
    assert not (tmp_path / "run").exists()


def test_dry_run_lists_each_problem_marked(tmp_path: Path) -> None:
    environment = {"PATH": "/usr/bin:/bin", "HOME": str(Path.home())}
    done = subprocess.run(
        [str(DIALBENCH), "run", str(pipeline_file(tmp_path)), "--dry-run"],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr  # a plan made where the servers are not
    assert (
        "✗ openai:gpt-4.1-mini (stage judge): environment variable OPENAI_API_KEY (the API key) "
        "is not set" in done.stdout
    )
    assert "Traceback" not in done.stdout + done.stderr


class CountedChecks(ModelAPI):
    """A backend whose server is down, counting how often it is checked."""

    checks: ClassVar[int] = 0

    def __init__(self, config: ModelConfig) -> None:
        self.spec = self.endpoint = config.spec

    def check(self) -> None:
        CountedChecks.checks += 1
        raise ModelsDown("the server is down")

    async def generate(self, request: Request) -> Completion:
        raise AssertionError("never called")


class ModelsDown(DialbenchError):
    pass


def test_a_model_named_by_several_stages_is_checked_once(
    register: Register, tmp_path: Path
) -> None:
    register(BACKENDS, "counted", CountedChecks)
    judges = [
        {"stage": "judge", "name": name, "protocol": protocol, "judges": ["counted:j"]}
        for name, protocol in (("holistic", "holistic"), ("issues", "issues"))
    ]
    data = {"stages": [{"stage": "import", "example": "multilingual_dialogues"}, *judges]}
    path = tmp_path / "pipeline.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    CountedChecks.checks = 0
    with pytest.raises(ModelsUnavailable) as stopped:
        run_pipeline(load_pipeline(path), tmp_path / "run")
    assert [p.where for p in stopped.value.problems] == ["stage holistic", "stage issues"]
    assert CountedChecks.checks == 1
    plan = plan_pipeline(load_pipeline(path), tmp_path / "run")
    assert [len(stage.problems) for stage in plan.stages] == [0, 1, 1]
    assert CountedChecks.checks == 2
