"""Judge panels on a run whose every value is worked out by hand (`known_panel.py`)."""

from __future__ import annotations

from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest

from dialbench.cli.run_stats import run_statistics
from dialbench.errors import DialbenchError
from dialbench.metaeval.api import metaeval
from dialbench.metaeval.config import MetaevalConfig
from dialbench.panel import PanelConfig, panel
from dialbench.panel.aggregation import combine
from dialbench.panel.families import family_of, shared_families
from dialbench.report import ReportConfig, report
from dialbench.schema import Annotation, Dialogue, Judgment, Target
from dialbench.store import RunStore
from tests.panel.known_panel import (
    CHATBOTS,
    FLAG,
    OVERALL,
    A,
    B,
    C,
    answer,
    dialogue,
    judgment,
    make_panel_run,
)

NAME = "trio"


@pytest.fixture
def run(tmp_path: Path) -> tuple[Path, dict[str, list[Dialogue]]]:
    path = tmp_path / "run"
    return path, make_panel_run(path)


def _verdicts(path: Path) -> dict[str, Judgment]:
    with RunStore.open(path, create=False) as store:
        return {
            j.target.dialogue_id: j
            for j in store.records(Judgment, protocol="issues")
            if j.judge_model == f"panel:{NAME}"
        }


def _made(path: Path, method: str, judges: tuple[str, ...] = (A, B, C)) -> dict[str, Judgment]:
    panel(PanelConfig(name=NAME, judges=list(judges), method=method), path)  # type: ignore[arg-type]
    return _verdicts(path)


def _says(judgment: Judgment) -> tuple[bool, int]:
    assert judgment.parse_status == "ok"
    assert judgment.result is not None
    issues = judgment.result["issues"]
    assert isinstance(issues, dict)
    return bool(issues["repetitive"]), int(judgment.result["overall"])  # type: ignore[arg-type]


def test_median_takes_the_majority_label_and_the_lower_median_score(run) -> None:
    path, made = run
    verdicts = _made(path, "median")
    en, zh, de = made["en"], made["zh"], made["de"]
    for i in range(6):  # B and C outvote A
        assert _says(verdicts[en[i].id]) == (not FLAG[i], 6 - OVERALL[i])
        # A against C: a tied label goes to the positive class, a tied score to the lower one
        assert _says(verdicts[zh[i].id]) == (True, min(OVERALL[i], 6 - OVERALL[i]))
    assert _says(verdicts[en[7].id]) == (True, 2)  # C failed: A (True, 2) and B (False, 5)
    assert all(_says(verdicts[d.id]) == (False, 2) for d in de)  # 1, 2, 4 -> 2
    assert isinstance(verdicts[en[0].id].result["overall"], int)  # type: ignore[index]


def test_a_target_fewer_than_half_the_members_answered_fails_with_the_reason(run) -> None:
    path, made = run
    failed = _made(path, "median")[made["en"][6].id]  # only A answered
    assert failed.parse_status == "unscored"
    assert failed.result is None
    assert failed.error is not None
    assert "1 of 3 members answered, fewer than half" in failed.error
    assert B in failed.error
    assert C in failed.error


def test_majority_takes_the_most_common_score_ties_to_the_lowest(run) -> None:
    path, made = run
    verdicts = _made(path, "majority")
    for i in range(6):
        assert _says(verdicts[made["en"][i].id]) == (not FLAG[i], 6 - OVERALL[i])
        assert _says(verdicts[made["zh"][i].id])[1] == min(OVERALL[i], 6 - OVERALL[i])
    assert all(_says(verdicts[d.id]) == (False, 1) for d in made["de"])  # 1, 2, 4 all once


def test_weighted_follows_the_member_the_humans_agree_with_in_each_language(run) -> None:
    path, made = run
    done = panel(PanelConfig(name=NAME, judges=[A, B, C], method="weighted"), path)
    verdicts = _verdicts(path)
    for i in range(6):  # en: humans = A; zh: humans = C
        assert _says(verdicts[made["en"][i].id]) == (FLAG[i], OVERALL[i])
        assert _says(verdicts[made["zh"][i].id]) == (FLAG[i], OVERALL[i])
    assert _says(verdicts[made["en"][7].id]) == (True, 2)  # A outweighs B
    assert all(_says(verdicts[d.id]) == (False, 2) for d in made["de"])  # equal weights
    weights = done.settings.weights
    assert weights["en"]["overall"] == {A: 1.0, B: 0.0, C: 0.0}
    assert weights["zh"]["overall"] == {A: 0.0, B: 0.5, C: 1.0}  # B: the mean of A's and C's
    assert any(f"{B}: no human labels on overall in zh: given the mean weight 0.5" in n
               for n in done.notes)  # fmt: skip
    assert any("overall in de" in n and "equal weights" in n for n in done.notes)
    median = panel(PanelConfig(name=NAME, judges=[A, B, C]), path)
    assert median.settings.weights == {}
    with RunStore.open(path, create=False) as store:  # a judge beside the weighted one
        configurations = {j.configuration.fingerprint for j in store.records(Judgment)
                          if j.judge_model == f"panel:{NAME}" and j.configuration}  # fmt: skip
    assert len(configurations) == 2


def test_the_members_agreement_per_language_is_krippendorffs_alpha_written_to_csv(run) -> None:
    path, _ = run
    done = panel(PanelConfig(name=NAME, judges=[A, B, C]), path)
    row = next(r for r in done.agreement if (r.dimension, r.language) == ("overall", "en"))
    answers = {  # en: six dialogues by all, then A alone (4), then A 2 and B 5
        A: [*OVERALL, 4, 2],
        B: [6 - o for o in OVERALL] + [np.nan, 5],
        C: [6 - o for o in OVERALL] + [np.nan, np.nan],
    }
    expected = krippendorff.alpha(
        reliability_data=np.array(list(answers.values()), dtype=float),
        level_of_measurement="ordinal",
    )
    assert row.alpha == pytest.approx(expected)
    assert (row.n_items, row.n_members, row.scale) == (7, 3, "ordinal")
    zh = next(r for r in done.agreement if (r.dimension, r.language) == ("overall", "zh"))
    assert zh.n_members == 2  # B judged no Chinese dialogue
    written = pd.read_csv(path / "panels" / NAME / "agreement.csv")
    assert set(written["language"]) == {"all", "en", "zh", "de"}
    assert written.loc[
        (written["dimension"] == "overall") & (written["language"] == "en"), "alpha"
    ].item() == pytest.approx(expected)


def test_a_rerun_changes_nothing(run) -> None:
    path, _ = run
    first = panel(PanelConfig(name=NAME, judges=[A, B, C]), path)
    again = panel(PanelConfig(name=NAME, judges=[A, B, C]), path)
    assert first.stored.added == 16
    assert (first.judged, first.failed) == (15, 1)
    assert (again.stored.added, again.stored.unchanged, again.stored.replaced) == (0, 16, 0)


def test_a_judge_sharing_a_chatbots_model_family_is_warned_about(run) -> None:
    path, _ = run
    done = panel(PanelConfig(name=NAME, judges=[A, B, C]), path)
    assert done.family_warnings == [
        f"judge {A} and chatbot {CHATBOTS[0]} share the model family qwen: a judge may favour "
        "its own family's answers"
    ]
    assert [family_of(s) for s in ("ollama:llama3.1:8b", "openai:gpt-4o", "hf:Qwen/QwQ-32B",
            "claude-3-5-sonnet", "ollama:phi3", "01-ai/yi-34b", "ollama:mixtral", "my-bot")] == [
        "llama", "gpt", "qwen", "claude", "phi", "yi", "mistral", None]  # fmt: skip
    assert family_of("ollama:dolphin") is None  # `phi` inside a word is not phi
    assert shared_families(["ollama:gemma2"], ["google:gemini-1.5"]) == []


def test_panel_is_a_judge_to_stats_and_metaeval(run) -> None:
    path, _ = run
    panel(PanelConfig(name=NAME, judges=[A, B, C], method="weighted"), path)
    with RunStore.open(path, create=False) as store:
        stats = run_statistics(store, None).model_dump_json()
    assert f"panel:{NAME}" in stats
    found = metaeval(MetaevalConfig(), path)
    raters = {row.rater for row in found.report.correlation}
    assert {f"panel:{NAME}", A, B, C} <= raters


def test_bad_members_are_one_clear_error(run) -> None:
    path, _ = run
    with pytest.raises(DialbenchError, match="no issues judgments by 'nobody'"):
        panel(PanelConfig(name=NAME, judges=[A, "nobody"]), path)
    panel(PanelConfig(name=NAME, judges=[A, B]), path)
    with pytest.raises(DialbenchError, match="cannot be a member of itself"):
        panel(PanelConfig(name=NAME, judges=[A, f"panel:{NAME}"]), path)


@pytest.mark.parametrize(
    ("codes", "weights", "scale", "method", "expected"),
    [
        ([1.0, 0.0], [1.0, 1.0], "binary", "median", 1.0),  # a tie: the positive class
        ([2.0, 0.0, 0.0], [1.0, 1.0, 1.0], "nominal", "median", 0.0),
        ([1.0, 2.0, 4.0, 5.0], [1.0, 1.0, 1.0, 1.0], "ordinal", "median", 2.0),  # lower middle
        ([1.0, 2.0, 6.0], [1.0, 1.0, 1.0], "interval", "median", 3.0),
        ([1.0, 2.0, 5.0], [0.2, 0.2, 0.7], "ordinal", "weighted", 5.0),
        ([1.0, 3.0], [1.0, 3.0], "interval", "weighted", 2.5),
        ([0.0, 1.0, 1.0], [0.9, 0.3, 0.3], "binary", "weighted", 0.0),
        ([1.0, 3.0], [0.0, 0.0], "interval", "weighted", 2.0),  # no say: equal
        ([4.0, 4.0, 1.0], [1.0, 1.0, 5.0], "ordinal", "majority", 4.0),  # weights unused
    ],
)
def test_combine(codes, weights, scale, method, expected) -> None:
    assert combine(np.array(codes), np.array(weights), scale, method) == expected


def test_the_command_prints_the_agreement_the_warning_and_the_weights(run, cli) -> None:
    path, _ = run
    args = ("panel", path, "--name", NAME, "--judge", A, "--judge", B, "--judge", C)
    done = cli(*args, "--method", "weighted")
    assert (
        f"warning: judge {A} and chatbot {CHATBOTS[0]} share the model family qwen" in done.stdout
    )
    assert "Agreement among the members of panel:trio" in done.stdout
    assert f"weights en overall: {A} 1.00, {B} 0.00, {C} 0.00" in done.stdout
    assert "15 judged, 1 failed" in done.stdout
    wrong = cli("panel", path, "--name", NAME, "--judge", A, ok=False)
    assert "two or more --judge" in wrong.stderr + wrong.stdout
    assert "Traceback" not in wrong.stderr


def test_the_report_shows_the_panel_as_a_judge(run, tmp_path: Path) -> None:
    path, _ = run
    panel(PanelConfig(name=NAME, judges=[A, B, C]), path)
    report(ReportConfig(output=tmp_path / "report"), path)
    page = (tmp_path / "report" / "index.html").read_text(encoding="utf-8")
    assert f"panel:{NAME}" in page
    assert A in page


def test_weighting_by_measured_agreement_recovers_the_truth_better_than_the_median(
    tmp_path: Path,
) -> None:
    """A known truth (each dialogue repetitive or not, humans see it): per language one member
    is right 95% of the time and the other two 60%, a different one in each language. The
    weighted panel follows the good member where the median is outvoted by the noisy two."""
    rng = np.random.default_rng(7)
    good = {"en": A, "zh": B, "fr": C}
    records: list[object] = []
    truth: dict[str, bool] = {}
    for language, expert in good.items():
        for i in range(40):
            d = dialogue(language, i)
            truth[d.id] = flag = bool(rng.random() < 0.5)
            records.append(d)
            for member in (A, B, C):
                right = rng.random() < (0.95 if member == expert else 0.6)
                records.append(judgment(member, d, answer(flag == right, 3)))
            records += [
                Annotation(annotator_id=h, target=Target(dialogue_id=d.id), labels=answer(flag, 3))
                for h in ("h1", "h2")
            ]
    path = tmp_path / "simulated"
    with RunStore.open(path) as store, store.invocation("import") as invocation:
        store.add(records, invocation)  # type: ignore[arg-type]

    def accuracy(method: str) -> float:
        _made(path, method)
        return float(np.mean([_says(j)[0] == truth[i] for i, j in _verdicts(path).items()]))

    median, weighted = accuracy("median"), accuracy("weighted")
    assert weighted >= 0.9 > median
