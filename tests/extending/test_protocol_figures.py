"""A new rating protocol is one folder and one registry line: its figures, declared as data on
its class, get their intervals, a section of the report and paired differences between chatbots
there, and a place in `dialbench stats` and `compare`, with no code in figures/ or report/."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from dialbench.cli import app
from dialbench.judge.api import judge
from dialbench.judge.config import JudgeConfig
from dialbench.judge.registry import PROTOCOLS
from dialbench.llm.base import Request
from dialbench.registry import Registry
from dialbench.report.config import ReportConfig
from dialbench.report.writer import ReportResult, report
from dialbench.schema import Dialogue, Participants, SeedContext, Turn
from dialbench.store import RunStore
from tests.extending.politeness import PolitenessProtocol
from tests.scripted_models import ScriptedModel

SEEDS = 8


def reply(chatbot: str, seed: int) -> str:
    """bot-kind always says please; bot-curt only on every fourth seed."""
    polite = chatbot == "bot-kind" or seed % 4 == 0
    return f"Of course, please sit down ({seed})." if polite else f"No. ({seed})"


def dialogues() -> list[Dialogue]:
    """Both chatbots' dialogues of each seed, half of the seeds in German."""
    return [
        Dialogue(
            language=language,
            seed=SeedContext(language=language, scene=f"a café, table {seed}"),
            participants=Participants(user="sim", assistant=chatbot),
            turns=[
                Turn(role="user", text=f"May I sit here? ({seed})"),
                Turn(role="assistant", text=reply(chatbot, seed)),
            ],
        )
        for seed in range(SEEDS)
        for language in ["en" if seed < SEEDS / 2 else "de"]
        for chatbot in ("bot-kind", "bot-curt")
    ]


def politeness_judge(request: Request) -> str:
    polite = "please" in request.messages[-1].content
    return json.dumps({"politeness": 5 if polite else 2, "rude": not polite})


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, ReportResult]]:
    """A run judged under the new protocol, and its report; the protocol registered for this
    module by its one line, as `register` does for one test."""
    PROTOCOLS.register("politeness", PolitenessProtocol)
    try:
        run = tmp_path_factory.mktemp("run")
        with RunStore.open(run) as store, store.invocation("import") as imported:
            store.add(dialogues(), imported)
        model = ScriptedModel("politeness-judge", politeness_judge)
        config = JudgeConfig(protocol="politeness", judges=[model.config()])
        assert judge(config, run, quiet=True).judges[0].ok == 2 * SEEDS
        yield run, report(ReportConfig(), run)
    finally:
        PROTOCOLS.unregister("politeness")


def csv(written: ReportResult, name: str) -> pd.DataFrame:
    return pd.read_csv(written.folder / "tables" / f"{name}.csv")


def test_the_declared_figures_have_their_section_with_intervals(
    judged: tuple[Path, ReportResult],
) -> None:
    _, written = judged
    [section] = [s for s in written.sections if s.key == "politeness"]
    assert section.title == "Politeness per chatbot and language"
    means = csv(written, "politeness_means")
    assert list(means.columns) == [
        *("judge", "chatbot", "language", "items", "seeds"),
        *("politeness", "politeness_low", "politeness_high", "rude", "rude_low", "rude_high"),
        "note",
    ]
    curt = means[(means["chatbot"] == "bot-curt") & (means["language"] == "all")].iloc[0]
    assert (curt["items"], curt["seeds"]) == (SEEDS, SEEDS)
    assert (curt["politeness"], curt["rude"]) == (2.75, 0.75)  # polite on 2 of the 8 seeds
    assert curt["politeness_low"] < 2.75 < curt["politeness_high"]
    assert 0 < curt["rude_low"] < 0.75 < curt["rude_high"] < 1
    shown = section.tables[0].html
    assert "75% [" in shown  # a rate as a share, the score as a mean
    assert "2.75 [" in shown


def test_the_chatbots_differ_on_the_declared_figures(judged: tuple[Path, ReportResult]) -> None:
    _, written = judged
    differences = csv(written, "chatbot_differences")
    pooled = differences[
        (differences["protocol"] == "politeness") & (differences["language"] == "all")
    ].set_index("dimension")
    assert sorted(pooled.index) == ["politeness", "rude"]
    assert set(pooled["design"]) == {"paired"}  # both chatbots ran every seed
    assert (pooled.loc["politeness", "first"], pooled.loc["politeness", "second"]) == (
        "bot-curt",
        "bot-kind",
    )
    assert pooled["difference"].tolist() == [pytest.approx(-2.25), pytest.approx(0.75)]
    assert pooled["holds"].all()  # on 8 seeds; on the 4 of one language, neither holds


def invoke(*args: str | Path) -> str:
    done = CliRunner().invoke(app, [str(arg) for arg in args], env={"COLUMNS": "200"})
    assert done.exit_code == 0, done.output
    return done.output


def test_stats_and_compare_show_the_declared_figures(judged: tuple[Path, ReportResult]) -> None:
    run, _ = judged
    figures = json.loads(invoke("stats", run, "--json"))["chatbot_figures"]
    kind = [f for f in figures if f["chatbot"] == "bot-kind" and f["language"] == "all"]
    assert {f["dimension"]: f["value"] for f in kind} == {"politeness": 5.0, "rude": 0.0}
    compared = json.loads(invoke("compare", run, "-c", "bot-curt", "-c", "bot-kind", "-f", "json"))
    rows = {row["dimension"]: row for row in compared["rows"] if row["language"] == "all"}
    assert sorted(rows) == ["politeness", "rude"]
    assert rows["politeness"]["difference"] == pytest.approx(2.25)  # bot-kind − bot-curt
    assert all(row["holds"] for row in rows.values())


def test_registering_the_protocol_was_the_only_line(judged: tuple[Path, ReportResult]) -> None:
    """No entry for it in the registries of custom figures or report sections."""
    from dialbench.figures.observations import OBSERVATIONS
    from dialbench.report.protocols import PROTOCOL_SECTIONS

    registries: tuple[Registry[object], ...] = (OBSERVATIONS, PROTOCOL_SECTIONS)
    assert all("politeness" not in registry for registry in registries)
