"""`metric train` with `objective: judge`: a metric distilled from a trusted judge's judgments
written straight into a real store (the data path, the config's errors, the CLI and metaeval
beside the teacher). The real judge, end to end, is in test_distill_pipeline.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from dialbench import examples
from dialbench.errors import DialbenchError, InputError
from dialbench.metrics.config import MetricTrainConfig, TeacherConfig, load_config
from dialbench.metrics.examples import teacher_labels
from dialbench.metrics.saved_metric import load_model
from dialbench.metrics.score import score_run
from dialbench.metrics.train import train_metric
from dialbench.pipeline.config import load_pipeline
from dialbench.pipeline.graph import build_graph
from dialbench.schema import Annotation, Dialogue, JudgeConfiguration, Judgment, Target
from dialbench.store import RunStore
from tests.conftest import RunCli
from tests.metrics.helpers import annotated_run, fake_encoder

TEACHER = "openai:gpt-4.1"
DISTIL = """\
name: sensibleness-distilled
data: {runs: [run]}
objective: judge
teacher: {protocol: submetrics, dimension: sensibleness}
head: ridge
holdout: {fraction: 0.3, seed: 0}
"""


def verdict(
    dialogue_id: str,
    turn: int | None,
    score: float | None,
    *,
    judge: str = TEACHER,
    protocol: str = "submetrics",
    sample: int = 0,
    options: dict[str, str] | None = None,
) -> Judgment:
    """A judgment as a judge stores it; no score is an unscored one."""
    return Judgment(
        protocol=protocol,
        judge_model=judge,
        target=Target(dialogue_id=dialogue_id, turn_index=turn),
        sample_index=sample,
        configuration=JudgeConfiguration(options=dict(options or {})),
        result=None if score is None else {"sensibleness": score, "understandability": 5},
        parse_status="unscored" if score is None else "ok",
        raw_output="{}",
    )


def add(run: Path, judgments: list[Judgment]) -> None:
    with RunStore.open(run) as store, store.invocation("judge") as record:
        store.add(judgments, record)


def dialogues(run: Path) -> list[Dialogue]:
    with RunStore.open(run) as store:
        return list(store.records(Dialogue))


@pytest.fixture
def judged(tmp_path: Path) -> Path:
    """The helpers' annotated run (a chatbot turn saying "sorry" is a breakdown), its chatbot
    turns judged by a teacher that gives "sorry" 1.5 and anything else 4 or 5."""
    run = annotated_run(tmp_path / "run")
    add(
        run,
        [
            verdict(d.id, i, 1.5 if d.turns[i].text == "sorry" else 4.0 + i % 2)
            for d in dialogues(run)
            for i in (1, 3)
        ],
    )
    return run


def config_file(folder: Path, text: str = DISTIL) -> Path:
    path = folder / "distil.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_only_ok_judgments_become_targets_and_samples_are_averaged(judged: Path) -> None:
    first, second = dialogues(judged)[:2]
    add(
        judged,
        [
            verdict(first.id, 1, 2.0, sample=1),  # samples 0 and 1 of one turn
            verdict(second.id, 2, None),  # an unscored user turn: never a label
        ],
    )
    with RunStore.open(judged) as store:
        labels = teacher_labels(
            [store], TeacherConfig(protocol="submetrics", dimension="sensibleness")
        )
    assert labels.teacher.judge == TEACHER  # filled in: the one judge the runs hold
    assert labels.teacher.configuration == JudgeConfiguration().fingerprint
    expected_first = 1.5 if first.turns[1].text == "sorry" else 4.0 + 1
    assert labels.targets[(first.id, 1)] == pytest.approx((expected_first + 2.0) / 2)
    assert (second.id, 2) not in labels.targets
    assert len(labels.targets) == 2 * len(dialogues(judged))


def test_a_distilled_metric_learns_the_teacher_and_scores_like_it(
    judged: Path, tmp_path: Path
) -> None:
    info = train_metric(load_config(config_file(tmp_path)), tmp_path / "model", fake_encoder())
    assert (info.objective, info.dimension) == ("judge", "sensibleness")  # the teacher's key
    assert info.config["teacher"] == {
        "protocol": "submetrics",
        "dimension": "sensibleness",
        "judge": TEACHER,
        "configuration": JudgeConfiguration().fingerprint,
    }
    assert info.clip == (1.5, 5.0)
    assert {d.language for d in info.dev} == {"en", "de"}
    assert all(d.pearson is not None and d.pearson > 0.8 for d in info.dev), info.dev

    with RunStore.open(judged) as store:
        with store.invocation("score") as run:
            summary = score_run(load_model(tmp_path / "model"), store, run, encoder=fake_encoder())
        scored = list(store.records(Judgment, protocol="metric:sensibleness-distilled"))
        texts = {d.id: d for d in store.records(Dialogue)}
    assert len(scored) == summary.judgments == 2 * len(texts)
    by_text: dict[bool, list[float]] = {True: [], False: []}
    for j in scored:
        assert j.result is not None
        assert j.target.turn_index is not None
        sorry = texts[j.target.dialogue_id].turns[j.target.turn_index].text == "sorry"
        value = j.result["sensibleness"]
        assert isinstance(value, float)
        by_text[sorry].append(value)
    assert max(by_text[True]) < min(by_text[False])


def test_the_teacher_configuration_picks_one_of_several(judged: Path, tmp_path: Path) -> None:
    """A second configuration (a judge run again with other options) is kept apart, not mixed."""
    expected = JudgeConfiguration(options={"scoring": "expected"})
    add(
        judged,
        [verdict(d.id, 1, 3.25, options={"scoring": "expected"}) for d in dialogues(judged)],
    )
    mixed = load_config(config_file(tmp_path))
    with pytest.raises(InputError, match="several configurations") as raised:
        train_metric(mixed, tmp_path / "m", fake_encoder())
    assert f'{expected.fingerprint} (options {{"scoring": "expected"}})' in str(raised.value)
    chosen = DISTIL.replace(
        "dimension: sensibleness}",
        f"dimension: sensibleness, configuration: {expected.fingerprint}}}",
    )
    info = train_metric(load_config(config_file(tmp_path, chosen)), tmp_path / "m", fake_encoder())
    assert info.clip == (3.25, 3.25)


@pytest.mark.parametrize(
    ("teacher", "extra", "field", "message"),
    [
        (
            "{protocol: submetric, dimension: sensibleness}",
            "",
            "protocol",
            "no judgments of 'submetric' (they hold submetrics)",
        ),
        (
            "{protocol: holistic, dimension: quality}",
            "holistic",
            "protocol",
            "metric diqad train RUN --protocol holistic",
        ),
        (
            "{protocol: submetrics, dimension: sensibleness}",
            "second judge",
            "judge",
            "several judges: local:qwen2.5-1.5b, openai:gpt-4.1; name one",
        ),
        (
            "{protocol: submetrics, dimension: sensibleness, judge: openai:gpt-5}",
            "",
            "judge",
            "no judgments with 'openai:gpt-5'",
        ),
        (
            "{protocol: submetrics, dimension: coherence}",
            "",
            "dimension",
            "has a number at 'coherence'; its results hold sensibleness, understandability",
        ),
    ],
)
def test_a_teacher_the_runs_cannot_serve_is_one_error_naming_the_field(
    judged: Path, tmp_path: Path, teacher: str, extra: str, field: str, message: str
) -> None:
    first = dialogues(judged)[0]
    if extra == "holistic":  # a dialogue-level judge
        add(judged, [verdict(first.id, None, 2, protocol="holistic")])
    if extra == "second judge":
        add(judged, [verdict(first.id, 1, 3, judge="local:qwen2.5-1.5b")])
    path = config_file(
        tmp_path, DISTIL.replace("{protocol: submetrics, dimension: sensibleness}", teacher)
    )
    with pytest.raises(InputError) as raised:
        train_metric(load_config(path), tmp_path / "model", fake_encoder())
    assert str(raised.value).startswith(f"{path}: field 'teacher.{field}': ")
    assert message in str(raised.value)
    assert not (tmp_path / "model").exists()


@pytest.mark.parametrize(
    ("change", "line", "message"),
    [
        (
            ("teacher: {protocol: submetrics, dimension: sensibleness}\n", ""),
            1,
            "objective 'judge' needs teacher:",
        ),
        (
            (
                "objective: judge",
                "objective: graded\ntarget: {dimension: breakdown, values: {O: 1, X: 0}}",
            ),
            1,
            "teacher: is for objective 'judge'",
        ),
        (
            (
                "objective: judge",
                "objective: judge\ntarget: {dimension: breakdown, values: {O: 1, X: 0}}",
            ),
            1,
            "drop target:",
        ),
        (
            ("protocol: submetrics", "protocol: metric:sensibleness-distilled"),
            1,
            "cannot be its own teacher",
        ),
        (
            (
                "dimension: sensibleness}",
                "dimension: sensibleness, configuration: scoring=expected}",
            ),
            4,
            "teacher.configuration",
        ),
        (("dimension: sensibleness}", "}"), 4, "teacher.dimension"),
    ],
)
def test_config_errors_name_file_line_and_field(
    tmp_path: Path, change: tuple[str, str], line: int, message: str
) -> None:
    path = config_file(tmp_path, DISTIL.replace(*change))
    with pytest.raises(DialbenchError) as raised:
        load_config(path)
    assert str(raised.value).startswith(f"{path}:{line}: ")
    assert message in str(raised.value)


def test_a_config_without_a_teacher_dumps_as_before() -> None:
    """metric.json holds the dumped config: a graded metric trained again keeps its version."""
    graded = MetricTrainConfig.model_validate(
        {
            "name": "s",
            "data": {"runs": ["r"]},
            "target": {"dimension": "b", "values": {"O": 1, "X": 0}},
        }
    )
    assert "teacher" not in graded.model_dump(mode="json")
    assert "teacher" not in json.loads(graded.model_dump_json())


def test_cli_trains_on_the_teacher_and_metaeval_shows_both_against_humans(
    cli: RunCli, tmp_path: Path
) -> None:
    """The DBDC3 sample with its 30 human labels per turn, and a teacher whose sensibleness is
    the humans' share of O labels on a 1-5 scale (written directly: the real judge is in the
    pipeline test), distilled with the real encoder and compared with the humans beside it."""
    sample = examples.bundled()["dbdc3_sample"]
    run = tmp_path / "run"
    cli("import", sample, "--run", run)
    cli("import", sample, "--records", "annotations", "--run", run)
    with RunStore.open(run) as store:
        labels: dict[tuple[str, int], list[float]] = {}
        for a in store.records(Annotation):
            assert a.target.turn_index is not None
            labels.setdefault((a.target.dialogue_id, a.target.turn_index), []).append(
                float(a.labels["breakdown"] == "O")
            )
    add(run, [verdict(d, i, 1 + 4 * sum(v) / len(v)) for (d, i), v in labels.items()])
    config_file(tmp_path)

    trained = cli("metric", "train", "distil.yaml", "-o", "model")
    assert "against the teacher's judgments, not humans" in " ".join(trained.stdout.split())
    info = load_model(tmp_path / "model").info
    assert (info.objective, info.encoder.name) == ("judge", "usem3")
    cli("metric", "score", "model", run, "--heldout-only")
    # metaeval reads one protocol from a run; exported, each is one predictions file.
    cli("export", run, "--format", "long-csv", "--records", "annotations", "-o", "humans.csv")
    for protocol, name in (("submetrics", "teacher"), (info.protocol, "metric")):
        cli(
            "export",
            run,
            "--format",
            "long-csv",
            "--records",
            "judgments",
            "--protocol",
            protocol,
            "-o",
            f"{name}.csv",
        )
    cli(
        "metaeval",
        "--against",
        "humans.csv",
        "--predictions",
        "teacher.csv",
        "--predictions",
        "metric.csv",
        "--pair",
        "breakdown=sensibleness",
        "--scale",
        "breakdown=ordinal:X,T,O",
        "--bootstrap",
        "100",
        "-o",
        "both",
    )
    report = json.loads((tmp_path / "both" / "report.json").read_text())
    pearson = {
        row["rater"]: row["r"]
        for row in report["correlation"]
        if row["language"] == "all" and row["method"] == "pearson"
    }
    assert pearson[TEACHER] > 0.9  # the humans' own labels, rescaled
    assert pearson[info.judge_model] > 0.3  # learnt from the teacher alone, held out

    failed = cli(
        "metric", "train", config_file(tmp_path, DISTIL.replace("submetrics", "holistic")), ok=False
    )
    assert failed.returncode != 0
    assert failed.stderr.startswith("error: ")
    assert len(failed.stderr.strip().splitlines()) == 1
    assert "field 'teacher.protocol'" in failed.stderr


GRADED = """\
name: sensibleness
data: {runs: [run]}
target: {dimension: breakdown, values: {O: 1.0, X: 0.0}}
"""


@pytest.mark.parametrize(("config", "waits"), [(DISTIL, True), (GRADED, False)])
def test_the_metric_stage_waits_for_the_judge_stage_only_when_it_distils(
    tmp_path: Path, config: str, waits: bool
) -> None:
    config_file(tmp_path, config)
    stages = [
        {"stage": "judge", "protocol": "submetrics", "judges": ["local:gemma3-270m"]},
        {"stage": "metric", "train": "distil.yaml", "model": "model"},
    ]
    path = tmp_path / "pipeline.yaml"
    path.write_text(yaml.safe_dump({"run": "run", "stages": stages}), encoding="utf-8")
    metric = build_graph(list(load_pipeline(path).stages), tmp_path / "run")[1]
    assert (metric.inputs == ("judge",)) is waits
