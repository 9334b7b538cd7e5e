"""`scoring=expected` and `dimensions` through the judge stage: default options keep the ids
judgments had before these options existed, an expected score is a float with its weighing kept
in the raw output, and a judge without log-probabilities leaves the judgment unscored with the
reason. The real packaged model's expected scores, then metaeval and the report on them."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from scripted import dialogue

from dialbench.judge.api import judge
from dialbench.judge.config import JudgeConfig
from dialbench.judge.protocols.holistic import HolisticProtocol
from dialbench.judge.protocols.submetrics import SubmetricsProtocol
from dialbench.llm.base import Completion, GeneratedToken, Request, TokenLogprob
from dialbench.report.config import ReportConfig
from dialbench.report.writer import report
from dialbench.schema import Judgment
from dialbench.store import RunStore
from tests.conftest import RunCli
from tests.scripted_models import ScriptedModel


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    with RunStore.open(tmp_path / "run") as store, store.invocation("import") as run:
        store.add([dialogue("well-formed", "en", turns=4)], run)
    return tmp_path / "run"


def test_default_options_are_configured_as_before_they_existed() -> None:
    """The configuration's options are part of a judgment's id: new options left at their
    defaults are not in it, so judgments stored before them are found, not made again."""
    assert SubmetricsProtocol().options.configuration() == {"turns": "all"}
    assert HolisticProtocol().options.configuration() == {"few_shot": False}
    chosen = SubmetricsProtocol(options={"scoring": "expected", "dimensions": "sensibleness"})
    assert chosen.options.configuration() == {
        "turns": "all",
        "scoring": "expected",
        "dimensions": "sensibleness",
    }
    assert HolisticProtocol(options={"scoring": "argmax"}).options.configuration() == {
        "few_shot": False
    }


def score_answer(request: Request, probabilities: dict[str, float] | None) -> Completion:
    """`{"score": 4}`, with the score token's alternatives when `probabilities` is given."""
    parts = ['{"', "score", '":', " ", "4", "}"]
    tokens = [
        GeneratedToken(
            token=part,
            logprob=0.0,
            top=[TokenLogprob(token=t, logprob=math.log(p)) for t, p in probabilities.items()]
            if part == "4" and probabilities
            else [],
        )
        for part in parts
    ]
    with_logprobs = probabilities is not None and request.top_logprobs is not None
    return Completion(text="".join(parts), tokens=tokens if with_logprobs else [])


def judged(run_dir: Path, model: ScriptedModel, **options: Any) -> list[Judgment]:
    config = JudgeConfig(protocol="submetrics", options=options, judges=[model.config()])
    judge(config, run_dir, quiet=True)
    with RunStore.open(run_dir) as store:
        return [
            j
            for j in store.records(Judgment)
            if j.configuration is not None
            and all(j.configuration.options.get(k) == v for k, v in options.items())
        ]


def test_expected_scores_are_floats_with_their_weighing_kept(run_dir: Path) -> None:
    probabilities = {"4": 0.5, "5": 0.25, "3": 0.25}
    model = ScriptedModel("weighed", lambda request: score_answer(request, probabilities))
    argmax = judged(run_dir, model)
    assert [j.result for j in argmax] == [{"understandability": 4, "sensibleness": 4}] * 2
    assert all(r.top_logprobs is None for r in model.requests)
    expected = judged(run_dir, model, scoring="expected")
    assert len(expected) == 2
    assert {j.id for j in expected}.isdisjoint(j.id for j in argmax)
    for j in expected:
        assert j.parse_status == "ok", j.error
        assert j.result == {"understandability": 4.0, "sensibleness": 4.0}
        assert isinstance(j.result["sensibleness"], float)
        assert '--- sensibleness, score weighed ---\n{"argmax":4,"expected":4.0' in j.raw_output
        assert '"probabilities":{"1":0.0,"2":0.0,"3":0.25,"4":0.5,"5":0.25}' in j.raw_output
    assert all(r.top_logprobs == 20 for r in model.requests[-4:])


def test_one_dimension_is_half_the_calls(run_dir: Path) -> None:
    model = ScriptedModel("one", lambda request: score_answer(request, None))
    only = judged(run_dir, model, dimensions="sensibleness")
    assert len(model.requests) == 2
    assert [j.result for j in only] == [{"sensibleness": 4}] * 2


def test_a_judge_without_log_probabilities_leaves_the_judgment_unscored(run_dir: Path) -> None:
    model = ScriptedModel("plain", lambda request: score_answer(request, None))
    found = judged(run_dir, model, scoring="expected", dimensions="sensibleness")
    assert [j.parse_status for j in found] == ["unscored"] * 2
    assert found[0].result is None
    assert found[0].error == (
        "sensibleness: scoring=expected: the backend returned no log-probabilities"
    )
    assert found[0].raw_output == '{"score": 4}'


def test_an_expected_quality_counts_at_its_nearest_level_in_the_report(run_dir: Path) -> None:
    parts = ['{"', "reason", '":', ' "', "fine", '",', ' "', "quality", '":', " ", "1", "}"]
    weights = {"1": 0.3, "2": 0.7}
    tokens = [
        GeneratedToken(
            token=part,
            logprob=0.0,
            top=[TokenLogprob(token=t, logprob=math.log(p)) for t, p in weights.items()]
            if part == "1"
            else [],
        )
        for part in parts
    ]
    model = ScriptedModel("quality", lambda request: Completion(text="".join(parts), tokens=tokens))
    config = JudgeConfig(
        protocol="holistic", options={"scoring": "expected"}, judges=[model.config()]
    )
    judge(config, run_dir, quiet=True)
    with RunStore.open(run_dir) as store:
        [judgment] = store.records(Judgment)
    assert judgment.result == {"quality": 1.7, "reason": "fine"}
    levels = report(ReportConfig(), run_dir).folder / "tables" / "holistic_distribution.csv"
    rows = [line.split(",") for line in levels.read_text().splitlines()]
    header, first = rows[0], rows[1]
    assert (first[header.index("n_1")], first[header.index("n_2")]) == ("0", "1")


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_the_local_judge_weighs_its_scores(cli: RunCli, tmp_path: Path) -> None:
    """The packaged 0.5B rates DBDC3 turns and a dialogue's quality by expectation; metaeval
    and the report read the floats."""
    sample = cli("examples", "dbdc3_sample").stdout.strip()
    cli("import", sample, "--run", "runs/d")
    cli("import", sample, "--records", "annotations", "--run", "runs/d")
    options = ["--option", "turns=last", "--option", "scoring=expected"]
    cli("judge", "runs/d", "--protocol", "submetrics", *options, "--limit", "1", "--quiet")
    cli(
        "judge", "runs/d", "--protocol", "holistic", "--option", "scoring=expected",
        "--language", "en", "--limit", "1", "--quiet",
    )  # fmt: skip
    with RunStore.open(tmp_path / "runs/d") as store:
        submetrics = list(store.records(Judgment, protocol="submetrics"))
        holistic = list(store.records(Judgment, protocol="holistic"))
    assert len(submetrics) == 2  # the last chatbot turn of one dialogue per language
    for j in submetrics:
        assert j.parse_status == "ok", j.error
        assert j.result is not None
        for name in ("understandability", "sensibleness"):
            score = j.result[name]
            assert isinstance(score, float)
            assert 1.0 <= score <= 5.0
        assert "--- sensibleness, score weighed ---" in j.raw_output
    [quality] = holistic
    assert quality.parse_status == "ok", quality.error
    assert quality.result is not None
    assert isinstance(quality.result["quality"], float)
    assert 0.0 <= quality.result["quality"] <= 2.0
    assert "--- holistic, quality weighed ---" in quality.raw_output
    cli(
        "metaeval", "runs/d", "--protocol", "submetrics", "--pair", "breakdown=sensibleness",
        "--scale", "breakdown=ordinal:X,T,O", "--detect", "breakdown=X:judge<=2",
    )  # fmt: skip
    cli("report", "runs/d")
    means = (tmp_path / "runs/d/report/tables/submetric_means.csv").read_text()
    assert "local:qwen2.5-0.5b" in means
