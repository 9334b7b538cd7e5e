"""Every figure against a small case computed by hand (the arithmetic is in each docstring)."""

from __future__ import annotations

import pytest

from dialbench.metaeval.config import MetaEvalOptions, ScaleSpec
from dialbench.metaeval.evaluate import MetaEvalTables, meta_evaluate
from dialbench.ratings import Rating, flatten
from dialbench.schema import Judgment, Target

A = [1, 1, 0, 0]
B = [1, 0, 0, 0]
JUDGE = [1, 1, 1, 0]


def ratings(
    dimension: str,
    raters: dict[str, list[float | str]],
    judges: tuple[str, ...] = (),
    language: str = "en",
) -> list[Rating]:
    return [
        Rating(
            item_id=f"item-{i}",
            rater=rater,
            kind="judge" if rater in judges else "human",
            dimension=dimension,
            value=value,
            language=language,
        )
        for rater, values in raters.items()
        for i, value in enumerate(values)
    ]


def evaluate(rows: list[Rating], **options: object) -> MetaEvalTables:
    return meta_evaluate(rows, options=MetaEvalOptions(bootstrap_resamples=200, **options))  # type: ignore[arg-type]


def only(rows: list, **where: object):  # type: ignore[no-untyped-def, type-arg]
    found = [r for r in rows if all(getattr(r, k) == v for k, v in where.items())]
    assert len(found) == 1, found
    return found[0]


def test_krippendorff_alpha_and_cohen_kappa() -> None:
    """Coincidences o00=4, o01=o10=1, o11=2; n=8, n0=5, n1=3.
    alpha = 1 - (2/8) / (2*5*3/(8*7)) = 1 - 0.25/0.5357 = 8/15.
    kappa: po = 3/4, pe = .5*.25 + .5*.75 = .5, kappa = (.75-.5)/.5 = .5."""
    report = evaluate(ratings("empathy", {"A": A, "B": B}))
    row = only(report.agreement, language="all")
    assert row.alpha == pytest.approx(8 / 15)
    assert row.mean_pairwise_kappa == pytest.approx(0.5)
    assert (row.n_items, row.n_annotators, row.alpha_level) == (4, 2, "nominal")
    pair = only(report.kappa_pairs, language="all")
    assert (pair.annotator_a, pair.annotator_b, pair.n_items) == ("A", "B", 4)
    assert pair.kappa == pytest.approx(0.5)


def test_issue_detection_against_each_annotator_and_the_human_ceiling() -> None:
    """Judge vs A: TP2 FP1 FN0 TN1 -> P 2/3, R 1, F1+ .8, F1- 2/3, acc .75.
    Judge vs B: TP1 FP2 FN0 TN1 -> P 1/3, R 1, F1+ .5, F1- .5, acc .5.
    Averages: P .5, R 1, F1+ .65, F1- 7/12, acc .625; reference positives (2+1)/2.
    Ceiling, A vs B and B vs A: F1+ 2/3 both ways, F1- .8, accuracy .75."""
    report = evaluate(ratings("empathy", {"A": A, "B": B, "judge": JUDGE}, judges=("judge",)))
    judge = only(report.detection, rater="judge", language="all")
    assert judge.precision == pytest.approx(0.5)
    assert judge.recall == pytest.approx(1.0)
    assert judge.f1_positive == pytest.approx(0.65)
    assert judge.f1_negative == pytest.approx(7 / 12)
    assert judge.accuracy == pytest.approx(0.625)
    assert (judge.predicted_positive, judge.reference_positive) == (3, 1.5)
    assert (judge.n_items, judge.n_references) == (4, 2)
    ceiling = only(report.detection, rater="human (ceiling)", language="all")
    assert ceiling.f1_positive == pytest.approx(2 / 3)
    assert ceiling.f1_negative == pytest.approx(0.8)
    assert ceiling.accuracy == pytest.approx(0.75)


def test_mcnemar_exact_for_few_discordant_items() -> None:
    """Against reference B (all 1): judge alone right on 1 item, annotator A alone right on 5,
    both right on 2. Exact two-sided p = 2 * P(X <= 1 | n=6, p=.5) = 2 * 7/64 = 0.21875."""
    judge = [1, 0, 0, 0, 0, 0, 1, 1]
    a = [0, 1, 1, 1, 1, 1, 1, 1]
    b = [1, 1, 1, 1, 1, 1, 1, 1]
    report = evaluate(ratings("unsafe", {"A": a, "B": b, "judge": judge}, judges=("judge",)))
    row = only(report.mcnemar, annotator="A", reference="B", language="all")
    assert (row.judge_only_correct, row.human_only_correct, row.exact) == (1, 5, True)
    assert row.p_value == pytest.approx(0.21875)
    assert (row.judge_accuracy, row.human_accuracy) == (3 / 8, 7 / 8)


def test_correlations_with_p_values_and_intervals() -> None:
    """x = 1..5, y = 2,1,4,3,5: d = -1,1,-1,1,0 -> Spearman = 1 - 6*4/(5*24) = .8 = Pearson;
    Kendall: 8 concordant, 2 discordant pairs -> tau = 6/10."""
    rows = ratings(
        "overall", {"human": [2, 1, 4, 3, 5], "judge": [1, 2, 3, 4, 5]}, judges=("judge",)
    )
    report = evaluate(rows)
    by_method = {c.method: c for c in report.correlation if c.language == "all"}
    assert by_method["spearman"].r == pytest.approx(0.8)
    assert by_method["pearson"].r == pytest.approx(0.8)
    assert by_method["kendall"].r == pytest.approx(0.6)
    for row in by_method.values():
        assert row.p_value is not None
        assert 0 < row.p_value < 1
        assert row.ci_low is not None
        assert row.ci_high is not None
        assert row.ci_low <= row.r <= row.ci_high  # type: ignore[operator]
    assert only(report.agreement, language="all").note == "one annotator only: agreement needs two"


def test_three_class_labels_as_classification() -> None:
    """pred 0,1,2,2,1,0 vs ref 0,1,2,1,1,2: accuracy 4/6; recalls 1, 2/3, 1/2 -> UAR 13/18;
    precisions 1/2, 1, 1/2 -> 2/3; F1s 2/3, .8, .5 -> 59/90; kappa (2/3 - 1/3)/(2/3) = .5."""
    rows = ratings(
        "quality", {"human": [0, 1, 2, 1, 1, 2], "judge": [0, 1, 2, 2, 1, 0]}, judges=("judge",)
    )
    row = only(evaluate(rows).classification, rater="judge", language="all")
    assert row.accuracy == pytest.approx(4 / 6)
    assert row.uar == pytest.approx(13 / 18)
    assert row.precision_macro == pytest.approx(2 / 3)
    assert row.f1_macro == pytest.approx(59 / 90)
    assert row.kappa == pytest.approx(0.5)
    assert row.spearman is not None


def test_degenerate_cases_are_defined_with_a_note() -> None:
    """Nobody marked the issue: alpha and F1+ are undefined, F1- is perfect, no NaN anywhere."""
    report = evaluate(
        ratings("unsafe", {"A": [0, 0, 0], "B": [0, 0, 0], "judge": [0, 0, 0]}, judges=("judge",))
    )
    agreement = only(report.agreement, language="all")
    assert agreement.alpha is None
    assert "every rating is 0" in (agreement.note or "")
    judge = only(report.detection, rater="judge", language="all")
    assert (judge.f1_positive, judge.precision, judge.recall) == (None, None, None)
    assert judge.f1_negative == pytest.approx(1.0)
    assert "f1_positive" in (judge.note or "")
    constant = evaluate(
        ratings("overall", {"human": [1, 2, 3, 4], "judge": [3, 3, 3, 3]}, judges=("judge",))
    )
    spearman = only(constant.correlation, method="spearman", language="all")
    assert spearman.r is None
    assert spearman.note == "constant scores: correlation is undefined"
    assert "nan" not in constant.model_dump_json().lower()


def test_figures_are_given_per_language_with_counts() -> None:
    rows = ratings("empathy", {"A": A, "B": B}, language="de") + [
        r.model_copy(update={"item_id": "zh-" + r.item_id, "language": "zh"})
        for r in ratings("empathy", {"A": A, "B": A})
    ]
    report = evaluate(rows)
    languages = {row.language: row for row in report.agreement}
    assert set(languages) == {"all", "de", "zh"}
    assert languages["de"].alpha == pytest.approx(8 / 15)
    assert languages["zh"].alpha == pytest.approx(1.0)
    assert languages["all"].n_items == 8


def test_ordered_labels_and_sample_averaging() -> None:
    rows = ratings("breakdown", {"A": ["O", "T", "X", "X"], "B": ["O", "X", "X", "T"]})
    nominal = only(evaluate(rows).agreement, language="all")
    ordinal = only(
        evaluate(
            rows, scales={"breakdown": ScaleSpec(scale="ordinal", order=["O", "T", "X"])}
        ).agreement,
        language="all",
    )
    assert (nominal.alpha_level, ordinal.alpha_level) == ("nominal", "ordinal")
    assert ordinal.alpha is not None
    assert nominal.alpha is not None
    assert ordinal.alpha > nominal.alpha  # T vs X is a near miss on an ordinal scale
    two_samples = (
        ratings("unsafe", {"A": A, "B": B})
        + ratings("unsafe", {"judge": [1, 0, 1, 0]}, judges=("judge",))
        + ratings("unsafe", {"judge": [1, 0, 0, 0]}, judges=("judge",))
    )
    judge = only(evaluate(two_samples).detection, rater="judge", language="all")
    assert judge.predicted_positive == 2  # mean of the samples, ties count as positive


def test_unscored_rate_and_position_consistency() -> None:
    rows = ratings("overall", {"human": [1, 2, 3], "judge": [1, 2, 3]}, judges=("judge",))
    rows.append(
        Rating(
            item_id="item-3", rater="judge", kind="judge", dimension="*", value=None, language="en"
        )
    )
    judgments = [
        Judgment(
            protocol="arena",
            judge_model="j",
            target=Target(dialogue_id=a, other_dialogue_id=b),
            parse_status="ok",
            result={"winner": w},
        )
        for a, b, w in [
            ("a", "b", "first"),
            ("b", "a", "second"),
            ("c", "d", "first"),
            ("d", "c", "first"),
        ]
    ]
    report = meta_evaluate(rows, judgments, MetaEvalOptions(bootstrap_resamples=200))
    unscored = only(report.unscored, judge="judge", language="all")
    assert (unscored.outputs, unscored.unscored, unscored.rate) == (4, 1, 0.25)
    consistency = only(report.consistency, judge="j")
    assert (consistency.pairs, consistency.consistent, consistency.rate) == (2, 1, 0.5)


def test_nested_labels_flatten_and_explanations_are_not_dimensions() -> None:
    labels = {
        "issues": {"repetitive": True, "unsafe": False},
        "comments": {"repetitive": "again"},
        "overall": 4,
        "reason": "fine",
    }
    assert dict(flatten(labels)) == {"issues.repetitive": 1.0, "issues.unsafe": 0.0, "overall": 4.0}
