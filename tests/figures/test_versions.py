"""Two versions compared on the seeds both ran, and the gate's verdict on them."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialbench.errors import DialbenchError
from dialbench.figures.decision import assert_no_regression, check_versions
from dialbench.figures.gate import GateConfig, GateScope
from dialbench.figures.versions import Comparison, DifferenceRow, compare_versions
from tests.figures.known_versions import CHATBOT, SEEDS, make_run, repetitive_in_german


def row(comparison: Comparison, dimension: str, language: str) -> DifferenceRow:
    return next(r for r in comparison.rows if (r.dimension, r.language) == (dimension, language))


def test_the_candidate_is_compared_seed_by_seed_with_its_baseline(runs: dict[str, Path]) -> None:
    comparison = compare_versions(runs["baseline"], runs["worse"])
    assert [(p.baseline, p.candidate) for p in comparison.pairs] == [
        (f"baseline:{CHATBOT}", f"candidate:{CHATBOT}")
    ]
    german = row(comparison, "issues.repetitive", "de")
    assert (german.design, german.units) == ("paired", SEEDS)
    assert (german.baseline_value, german.candidate_value) == (0.25, 1.0)
    assert german.difference == pytest.approx(0.75)
    assert german.holds
    assert german.worse_by > 0
    english = row(comparison, "issues.repetitive", "en")
    assert english.difference == 0
    assert not english.holds
    assert "candidate − baseline" not in comparison.design  # the core's words, mapped once
    assert comparison.design.startswith("first = candidate, second = baseline")


def test_equal_versions_differ_nowhere(runs: dict[str, Path]) -> None:
    comparison = compare_versions(runs["baseline"], runs["equal"])
    assert comparison.rows
    assert not any(r.holds for r in comparison.rows)
    assert {r.difference for r in comparison.rows} == {0.0}


def test_the_gate_finds_the_german_regression_and_passes_the_equal_run(
    runs: dict[str, Path],
) -> None:
    worse = check_versions(runs["worse"], runs["baseline"])
    assert not worse.passed
    found = {(r.dimension, r.language) for r in worse.regressions}
    assert ("issues.repetitive", "de") in found
    assert all(r.language != "en" for r in worse.regressions)
    text = worse.text()
    assert text.startswith("REGRESSION:")
    assert "de    issues.repetitive: 0.250 -> 1.000, +0.750" in text
    assert "margin 0.03" in text
    assert check_versions(runs["equal"], runs["baseline"]).text().startswith("PASS:")


def test_a_scope_checks_only_what_it_names(runs: dict[str, Path]) -> None:
    english = GateConfig(scope=GateScope(languages=["en"]))
    verdict = check_versions(runs["worse"], runs["baseline"], english)
    english_rows = [
        r for r in compare_versions(runs["baseline"], runs["worse"]).rows if r.language == "en"
    ]
    assert verdict.passed
    assert verdict.checked == len(english_rows)
    with pytest.raises(DialbenchError, match="the gate checks none of the figures"):
        check_versions(
            runs["worse"], runs["baseline"], GateConfig(scope=GateScope(languages=["fr"]))
        )


def test_assert_no_regression_fails_with_the_verdicts_screen(runs: dict[str, Path]) -> None:
    assert_no_regression(runs["equal"], baseline=runs["baseline"])
    with pytest.raises(AssertionError, match=r"(?s)^REGRESSION:.*issues\.repetitive"):
        assert_no_regression(runs["worse"], baseline=runs["baseline"])


def test_runs_without_a_judge_in_common_cannot_be_compared(runs: dict[str, Path]) -> None:
    with pytest.raises(
        DialbenchError, match=r"no judge in both runs: .* has judge-x; .* has judge-y"
    ):
        compare_versions(runs["baseline"], runs["other-judge"])


def test_different_chatbots_are_paired_when_each_run_has_one(runs: dict[str, Path]) -> None:
    comparison = compare_versions(runs["baseline"], runs["other-bot"])
    assert [p.candidate for p in comparison.pairs] == ["candidate:python:new_bot:reply"]


def test_two_chatbots_of_one_run(tmp_path: Path) -> None:
    run = make_run(tmp_path / "both")
    make_run(run, repetitive_in_german, chatbot="python:new_bot:reply")
    default = compare_versions(run)
    assert [(p.baseline, p.candidate) for p in default.pairs] == [
        ("python:faq_bot:reply", "python:new_bot:reply")
    ]
    assert row(default, "issues.repetitive", "de").holds
    chosen = compare_versions(run, chatbots=["python:new_bot:reply", CHATBOT])
    assert row(chosen, "issues.repetitive", "de").difference == pytest.approx(-0.75)
    with pytest.raises(DialbenchError, match=r"choose two chatbots of the run .* it has python"):
        compare_versions(run, chatbots=[CHATBOT])


def test_runs_with_several_chatbots_need_a_choice(runs: dict[str, Path], tmp_path: Path) -> None:
    both = make_run(tmp_path / "both")
    make_run(both, chatbot="python:new_bot:reply")
    with pytest.raises(
        DialbenchError,
        match=r"which chatbots\? the baseline has python:faq_bot:reply; the candidate has "
        r"python:faq_bot:reply, python:new_bot:reply: choose with --chatbot",
    ):
        compare_versions(runs["baseline"], both)
    chosen = compare_versions(runs["baseline"], both, [CHATBOT])
    assert [p.candidate for p in chosen.pairs] == [f"candidate:{CHATBOT}"]
    paired = compare_versions(both, both)
    assert len(paired.pairs) == 2
