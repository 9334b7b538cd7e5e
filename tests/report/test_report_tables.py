"""The report's figures on a store with known judgments: every rate, count and distribution."""

from __future__ import annotations

from collections.abc import Iterator
from inspect import signature
from pathlib import Path

import pandas as pd
import pytest
from known_judgments import judgments, make_store

from dialbench.domains import DOMAINS
from dialbench.errors import DialbenchError
from dialbench.figures.intervals import DESIGN
from dialbench.figures.run_reads import RunReads
from dialbench.judge.protocols.holistic import HolisticProtocol
from dialbench.judge.protocols.submetrics import SubmetricsProtocol
from dialbench.judge.registry import PROTOCOLS
from dialbench.metrics.packaged import packaged_metrics
from dialbench.report import tables
from dialbench.report.chatbot_figures import interval_cell
from dialbench.report.context import ReportContext
from dialbench.report.figures_section import figures_table
from dialbench.report.measured_domains import measured_domains
from dialbench.report.protocols import PROTOCOL_SECTIONS
from dialbench.report.protocols.holistic import holistic_distribution
from dialbench.report.protocols.issues import (
    issue_proportions,
    issue_proportions_wide,
    issue_rates,
    overall_distribution,
    shown_rates,
)
from dialbench.report.writer import write_report
from dialbench.schema import Dialogue, Judgment, Participants, Turn
from dialbench.store import RunStore
from dialbench.store_contents import HUMAN
from tests.judge.scripted import ISSUE_KEYS


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunStore]:
    with RunStore.open(make_store(tmp_path_factory.mktemp("run"))) as opened:
        yield opened


@pytest.fixture(scope="module")
def context(store: RunStore, tmp_path_factory: pytest.TempPathFactory) -> ReportContext:
    return ReportContext(store, tmp_path_factory.mktemp("report"))


@pytest.fixture(scope="module")
def frame(context: ReportContext) -> pd.DataFrame:
    return context.frame


def row(table: pd.DataFrame, **where: str) -> pd.Series:
    mask = pd.Series(True, index=table.index)
    for column, value in where.items():
        mask &= table[column] == value
    [index] = table.index[mask]
    return table.loc[index]


def test_issue_rates_per_judge_chatbot_and_language(
    frame: pd.DataFrame, context: ReportContext
) -> None:
    rates = issue_rates(frame, context)
    german_b = row(rates, judge="judge-x", chatbot="bot-b", language="de")
    assert (german_b["items"], german_b["issues.repetitive"], german_b["overall"]) == (4, 1.0, 2.0)
    english_a = row(rates, judge="judge-x", chatbot="bot-a", language="en")
    assert (english_a["issues.irrelevant"], english_a["overall"]) == (0.25, 4.25)
    # judge-y left one dialogue per cell unscored: rates are over the 3 it scored.
    assert row(rates, judge="judge-y", chatbot="bot-a", language="en")["items"] == 3
    everywhere = row(rates, judge="judge-x", chatbot="bot-b", language="all")
    assert (everywhere["items"], everywhere["issues.repetitive"]) == (12, pytest.approx(1 / 3))
    assert list(rates["language"][:4]) == ["de", "en", "zh", "all"]


def test_every_issue_rate_has_its_interval_and_seeds(
    frame: pd.DataFrame, context: ReportContext
) -> None:
    rates = issue_rates(frame, context)
    for figure in ["issues.repetitive", "issues.irrelevant", "overall"]:
        assert {f"{figure}_low", f"{figure}_high"} <= set(rates.columns)
    german_b = row(rates, judge="judge-x", chatbot="bot-b", language="de")
    # the known store's dialogues have no seed: each one is its own seed
    assert german_b["seeds"] == 4
    assert (german_b["issues.repetitive_low"], german_b["issues.repetitive_high"]) == (1.0, 1.0)
    assert german_b["note"] == "only 4 seeds: unreliable interval"
    english_a = row(rates, judge="judge-x", chatbot="bot-a", language="en")
    assert english_a["issues.irrelevant_low"] <= 0.25 <= english_a["issues.irrelevant_high"]
    everywhere = row(rates, judge="judge-x", chatbot="bot-a", language="all")
    assert (everywhere["seeds"], everywhere["note"]) == (12, "")
    shown = row(shown_rates(rates), judge="judge-x", chatbot="bot-b", language="de")
    assert (shown["repetitive"], shown["overall"]) == ("100% [100–100]", "2.00 [2.00–2.00]")
    assert "repetitive_low" not in shown


def test_a_figure_reads_with_its_interval() -> None:
    assert interval_cell(0.25, 0.1, 0.4, rate=True) == "25% [10–40]"
    assert interval_cell(3.25, 2.9, 3.6, rate=False) == "3.25 [2.90–3.60]"
    assert interval_cell(0.25, float("nan"), float("nan"), rate=True) == "25%"  # one seed
    assert interval_cell(float("nan"), float("nan"), float("nan"), rate=False) == "-"


def test_issue_proportions_per_language_with_counts(frame: pd.DataFrame) -> None:
    proportions = issue_proportions(frame)
    german = row(proportions, judge="judge-x", language="de", issue="repetitive")
    assert (german["dialogues"], german["flagged"], german["rate"]) == (8, 4, 0.5)
    wide = issue_proportions_wide(proportions)
    assert row(wide, judge="judge-x", language="de")["repetitive"] == "50% (4/8)"
    assert list(wide.columns[2:]) == list(ISSUE_KEYS)


def test_overall_and_holistic_distributions(frame: pd.DataFrame, context: ReportContext) -> None:
    overall = row(overall_distribution(frame), judge="judge-x", language="de")
    assert (overall["judgments"], overall["n_2"], overall["n_5"], overall["n_1"]) == (8, 5, 3, 0)
    holistic = holistic_distribution(frame)
    b = row(holistic, judge="judge-x", chatbot="bot-b", language="en")
    assert (b["judgments"], b["n_0"], b["n_1"], b["n_2"], b["share_1"]) == (8, 4, 4, 0, 0.5)
    mean = row(
        figures_table(context, HolisticProtocol), judge="judge-x", chatbot="bot-b", language="en"
    )
    assert (mean["items"], mean["seeds"], mean["quality"]) == (4, 4, 0.5)  # 0 and 1 per item
    assert mean["quality_low"] == mean["quality_high"] == 0.5


def test_submetric_means_count_chatbot_turns(context: ReportContext) -> None:
    means = row(
        figures_table(context, SubmetricsProtocol), judge="judge-y", chatbot="bot-a", language="zh"
    )
    assert (means["turns"], means["understandability"], means["sensibleness"]) == (4, 4.0, 3.0)
    assert (means["seeds"], means["sensibleness_low"], means["sensibleness_high"]) == (4, 3, 3)


def test_sample_spread_of_repeated_judgments(frame: pd.DataFrame) -> None:
    spread = row(tables.sample_spread(frame), judge="judge-x", dimension="quality")
    assert spread["items"] == 24
    assert spread["all_samples_agree"] == 0.5  # bot-a always 2; bot-b 0 then 1
    assert spread["mean_sd"] == pytest.approx(0.5 * (2**0.5 / 2))


def test_unscored_tokens_and_cost_per_judge(frame: pd.DataFrame) -> None:
    usage = tables.usage_by_judge(frame)
    issues_y = row(usage, protocol="issues", judge="judge-y", language="all")
    assert (issues_y["judgments"], issues_y["unscored"], issues_y["unscored_rate"]) == (24, 6, 0.25)
    assert issues_y["prompt_tokens"] == 2400
    assert issues_y["cost_usd"] == pytest.approx(0.024)
    holistic = row(usage, protocol="holistic", judge="judge-x", language="en")
    assert pd.isna(holistic["cost_usd"])  # unpriced: empty, not zero


def test_a_run_with_dialogues_but_no_judgments_reports_the_dataset(tmp_path: Path) -> None:
    with RunStore.open(tmp_path) as store, store.invocation("test") as run:
        store.add([Dialogue(language="fr", turns=[Turn(role="user", text="bonjour")])], run)
        written = write_report(store, tmp_path / "report")
    assert [s.key for s in written.sections] == ["dataset"]
    assert "No judgments yet" in written.notes[0]
    assert "fr" in (tmp_path / "report" / "tables" / "dataset_languages.csv").read_text()


def test_an_empty_run_is_a_clear_error(tmp_path: Path) -> None:
    with RunStore.open(tmp_path) as store, pytest.raises(DialbenchError, match="nothing to report"):
        write_report(store, tmp_path / "report")


def test_dialogues_without_a_chatbot_model_are_human_or_unknown(tmp_path: Path) -> None:
    make_store(tmp_path)
    with RunStore.open(tmp_path) as store, store.invocation("more") as run:
        human = Dialogue(
            language="es", turns=[Turn(role="user", text="hola"), Turn(role="assistant", text="?")]
        )
        store.add([human], run)
        store.add([j for j in judgments([human]) if j.judge_model == "judge-x"][:1], run)
        assert HUMAN in set(RunReads(store).frame["chatbot"])


def test_names_cannot_inject_markup_or_formulas_into_report_md_or_csv(
    tmp_path: Path,
) -> None:
    chatbot = "<script>alert(1)</script>\u202e" + "x" * 80
    judge = '=HYPERLINK("http://evil","click")'
    with RunStore.open(tmp_path) as store, store.invocation("test") as run:
        hostile = Dialogue(
            language="en",
            participants=Participants(user="sim", assistant=chatbot),
            turns=[Turn(role="user", text="hi"), Turn(role="assistant", text="hello")],
        )
        store.add([hostile], run)
        made = [j.model_copy(update={"judge_model": judge, "id": ""}) for j in judgments([hostile])]
        store.add([Judgment.model_validate(j.model_dump()) for j in made], run)
        written = write_report(store, tmp_path / "report")
    markdown = written.markdown.read_text(encoding="utf-8")
    assert "<script>" not in markdown
    assert "&lt;script&gt;" in markdown
    for csv in (written.folder / "tables").glob("*.csv"):
        cells = pd.read_csv(csv, dtype=str).to_numpy().ravel().tolist()
        assert not any(str(cell).startswith("=") for cell in cells), csv.name
    assert any(
        str(cell).startswith("'=HYPERLINK")
        for cell in pd.read_csv(written.folder / "tables" / "judges.csv", dtype=str)["judge"]
    )


def test_every_protocol_has_report_sections_that_take_the_judgments_and_the_report() -> None:
    """Its declared figures' section, or sections of its own (MEDAL's heatmaps, DiQAD's levels,
    BotChat's pass@N, ratings and win rates); only submetrics needs nothing but the first."""
    declared = [p for p in PROTOCOLS if PROTOCOLS.load(p).figures_section is not None]
    assert (declared, list(PROTOCOL_SECTIONS)) == (
        ["holistic", "submetrics"],
        ["issues", "holistic", "unieval", "arena", "gteval", "replay"],
    )
    for protocol in PROTOCOL_SECTIONS:
        sections = PROTOCOL_SECTIONS.load(protocol)
        assert list(signature(sections).parameters) == ["frame", "context"]


def test_a_run_without_self_chats_has_no_botchat_sections(tmp_path: Path) -> None:
    with RunStore.open(make_store(tmp_path / "run")) as store:
        written = write_report(store, tmp_path / "report")
    keys = {s.key for s in written.sections}
    assert keys.isdisjoint({"selfchat-lengths", "unieval-pass", "arena-ratings", "gteval"})
    assert "measured_domains" not in keys  # judge-x and judge-y are no packaged evaluators


def test_packaged_evaluators_say_where_they_were_measured() -> None:
    [(info, _)] = packaged_metrics()
    earlier = "metric:sensibleness@another"  # a run judged before an upgrade
    shown = measured_domains(
        [info.judge_model, earlier, "local:qwen2.5-0.5b", "local:gemma3-270m"]
    ).set_index("evaluator")
    assert list(shown.index) == [
        *sorted([earlier, info.judge_model]),
        "local:qwen2.5-0.5b",
        "local:gemma3-270m",
    ]
    metric = shown.loc[info.judge_model]
    assert metric["measured on (labels)"] == (
        "chit-chat (human, machine-translated human, constructed)"
    )
    assert metric["never measured"] == "task-oriented, customer support, knowledge-grounded"
    assert shown.loc[earlier, "measured on (labels)"] == (
        f"{metric['measured on (labels)']} [the card of version {info.version}, not this one]"
    )
    assert shown.loc["local:qwen2.5-0.5b", "measured on (labels)"] == "chit-chat (human)"
    assert shown.loc["local:gemma3-270m", "measured on (labels)"] == "-"  # no figures at all
    assert shown.loc["local:gemma3-270m", "never measured"] == ", ".join(DOMAINS)
    assert measured_domains(["judge-x", "openai:gpt-4.1"]).empty


def test_a_report_of_a_packaged_metric_says_where_it_was_measured(
    tmp_path: Path, store: RunStore
) -> None:
    [(info, _)] = packaged_metrics()
    dialogues = list(store.records(Dialogue))[:1]
    made = [
        j.model_copy(update={"judge_model": info.judge_model, "id": ""})
        for j in judgments(dialogues)
        if j.judge_model == "judge-x"
    ]
    with RunStore.open(tmp_path / "run") as scored, scored.invocation("test") as run:
        scored.add(dialogues, run)
        scored.add([Judgment.model_validate(j.model_dump()) for j in made], run)
        written = write_report(scored, tmp_path / "report")
    [section] = [s for s in written.sections if s.key == "measured_domains"]
    assert section.title == "Where these evaluators were measured"
    markdown = written.markdown.read_text(encoding="utf-8")
    assert "## Where these evaluators were measured" in markdown
    assert "task-oriented, customer support, knowledge-grounded" in markdown


def test_differences_without_shared_seeds_are_unpaired_and_none_holds(tmp_path: Path) -> None:
    with RunStore.open(make_store(tmp_path / "run")) as store:
        written = write_report(store, tmp_path / "report")
    [section] = [s for s in written.sections if s.key == "differences"]
    assert "none of them holds" in section.note
    everything = pd.read_csv(written.folder / section.tables[0].csv)
    assert len(everything) == 2 * (9 + 1 + 2) * 4  # judges x figures x languages, one pair
    assert set(everything["design"]) == {"unpaired"}
    assert not everything["holds"].any()
    # the intervals' design is said once, where the report begins
    assert written.notes.count(f"{DESIGN}.") == 1
    assert written.markdown.read_text(encoding="utf-8").count(DESIGN) == 1


def test_chatbots_run_from_the_same_seeds_are_compared_seed_by_seed(tmp_path: Path) -> None:
    with RunStore.open(make_store(tmp_path / "run", seeded=True)) as store:
        written = write_report(store, tmp_path / "report")
        context = ReportContext(store, tmp_path / "report")
        rates = issue_rates(context.frame, context)
    assert row(rates, judge="judge-x", chatbot="bot-a", language="all")["seeds"] == 12
    [section] = [s for s in written.sections if s.key == "differences"]
    everything = pd.read_csv(written.folder / section.tables[0].csv)
    assert set(everything["design"]) == {"paired"}
    # bot-a's quality is 2 on every seed, bot-b's 0.5: 1.5 better on all 12 seeds
    quality = row(everything, judge="judge-x", dimension="quality", language="all")
    assert (quality["first"], quality["second"], quality["units"]) == ("bot-a", "bot-b", 12)
    assert (quality["difference"], quality["holds"]) == (1.5, True)
    # the same understandability on every seed: no difference
    same = row(everything, judge="judge-x", dimension="understandability", language="all")
    assert (same["difference"], same["holds"]) == (0.0, False)
    assert "2 of them hold" in section.note
    shown = section.tables[0].markdown.splitlines()[2:]
    assert len(shown) == 2
    assert all("| quality " in line for line in shown)
