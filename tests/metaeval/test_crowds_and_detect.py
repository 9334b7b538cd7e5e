"""A crowd of annotators (DBDC3: 30 labels per turn from a pool of over a thousand) gets a ceiling
like a pair does, and a labelled dimension can be read as a detection task, with judges that
answer in numbers put on one side of a threshold (sensibleness <= 2: a breakdown)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from pydantic import ValidationError
from sklearn.metrics import accuracy_score, precision_recall_fscore_support

from dialbench.errors import DialbenchError
from dialbench.metaeval.config import DetectSpec
from dialbench.metaeval.detection import confusion_scores
from dialbench.metaeval.references import HUMAN_CEILING
from dialbench.metaeval.scales import parse_detect
from dialbench.ratings import Rating
from tests.conftest import RunCli
from tests.metaeval.test_figures import evaluate, only, ratings
from tests.metaeval.test_metaeval_hardening import long_csv

BINARY_PANELS = arrays(float, st.tuples(st.integers(1, 8), st.integers(1, 4)),
                       elements=st.sampled_from([0.0, 1.0, math.nan]))  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(BINARY_PANELS, BINARY_PANELS)
def test_confusion_matrices_match_scikit_learn_pair_by_pair(
    predicted: np.ndarray, reference: np.ndarray
) -> None:
    """The four matrix products give, for every rater and reference, scikit-learn's figures on
    the items both rated (NaN where it is undefined too)."""
    items = min(len(predicted), len(reference))
    predicted, reference = predicted[:items], reference[:items]
    scores, shared = confusion_scores(predicted, reference)
    for i in range(predicted.shape[1]):
        for j in range(reference.shape[1]):
            both = ~np.isnan(predicted[:, i]) & ~np.isnan(reference[:, j])
            assert shared[i, j] == both.sum()
            if not both.any():
                continue
            p, r = predicted[both, i], reference[both, j]
            precision, recall, f1, _ = precision_recall_fscore_support(
                r, p, labels=[1.0, 0.0], zero_division=np.nan
            )
            expected = {
                "precision": precision[0],
                "recall": recall[0],
                "f1_positive": f1[0],
                "f1_negative": f1[1],
                "accuracy": accuracy_score(r, p),
                "predicted_positive": p.sum(),
                "reference_positive": r.sum(),
            }
            for name, value in expected.items():
                np.testing.assert_allclose(scores[name][i, j], value, err_msg=name)


def test_the_correlation_ceiling_is_each_annotator_against_the_mean_of_the_others() -> None:
    """A = C = 1..5, B = 2,1,4,3,5. A (and C) against the mean of the other two, 1.5,1.5,3.5,3.5,5:
    deviations -2..2 and -1.5,-1.5,.5,.5,2 -> r = 9 / sqrt(10 * 9) = 3/sqrt(10), by ranks too.
    B against 1..5: r = .8 (d = -1,1,-1,1,0). The ceiling is the mean: (6/sqrt(10) + .8) / 3."""
    a = [1, 2, 3, 4, 5]
    report = evaluate(ratings("overall", {"A": a, "B": [2, 1, 4, 3, 5], "C": a}))
    expected = (6 / math.sqrt(10) + 0.8) / 3
    for method in ("pearson", "spearman"):
        row = only(report.correlation, rater=HUMAN_CEILING, method=method, language="all")
        assert row.r == pytest.approx(expected)
        assert (row.note or "").startswith("mean over 3 annotator(s), each against the mean of")


def crowd(annotators: int, items: int, per_item: int, seed: int = 0) -> list[Rating]:
    """Each item labelled X/T/O by `per_item` annotators drawn from a pool, as DBDC3 is; the
    labels follow a hidden truth with noise, and a judge scores each item 1-5."""
    rng = random.Random(seed)
    rows: list[Rating] = []
    for i in range(items):
        truth = i % 3
        for annotator in rng.sample(range(annotators), per_item):
            label = truth if rng.random() < 0.7 else rng.randrange(3)
            rows.append(
                Rating(item_id=f"t{i}", rater=f"h{annotator}", kind="human",
                       dimension="breakdown", value="XTO"[label], language="en")
            )  # fmt: skip
        rows.append(
            Rating(item_id=f"t{i}", rater="judge", kind="judge", dimension="breakdown",
                   value=float(1 + 2 * truth), language="en")
        )  # fmt: skip
    return rows


def test_a_crowd_of_a_hundred_annotators_gets_its_ceilings() -> None:
    """Far past the pairwise limit (10 annotators): correlation and detection ceilings are
    still there, from every annotator, and the judge that follows the truth beats them."""
    order = {"breakdown": {"scale": "ordinal", "order": ["X", "T", "O"]}}
    rows = crowd(annotators=100, items=60, per_item=30)
    report = evaluate(
        rows,
        scales=order,
        detect={"breakdown": DetectSpec(positive=["X"], judge_at_most=2)},
    )
    ceiling = only(report.correlation, rater=HUMAN_CEILING, method="pearson", language="all")
    judge = only(report.correlation, rater="judge", method="pearson", language="all")
    assert ceiling.note == "mean over 100 annotator(s), each against the mean of the others"
    assert 0.3 < ceiling.r < judge.r  # type: ignore[operator]
    human = only(report.detection, rater=HUMAN_CEILING, language="all")
    machine = only(report.detection, rater="judge", language="all")
    assert human.dimension == machine.dimension == "breakdown=X"
    rated: dict[str, set[str]] = {}
    for r in rows:
        if r.kind == "human":
            rated.setdefault(r.rater, set()).add(r.item_id)
    sharing = sum(1 for a in rated for b in rated if a != b and rated[a] & rated[b])
    assert human.n_references == sharing, "every ordered pair of annotators sharing an item"
    assert 0.3 < human.f1_positive < machine.f1_positive  # type: ignore[operator]


def test_detect_reads_labels_and_a_numeric_judge_by_its_threshold() -> None:
    """Humans h1 = X,O,X,T and h2 = X,T,O,O; judge 1,5,2,4 with <= 2 positive: 1,0,1,0.
    Against h1 (1,0,1,0): all right: F1+ 1, F1- 1, accuracy 1.
    Against h2 (1,0,0,0): TP1 FP1 TN2 -> F1+ 2/3, F1- 4/5, accuracy 3/4.
    Judge: F1+ 5/6, F1- .9, accuracy 7/8. Ceiling, h1 vs h2 and h2 vs h1: 2/3, 4/5, 3/4."""
    rows = ratings(
        "breakdown",
        {"h1": ["X", "O", "X", "T"], "h2": ["X", "T", "O", "O"], "judge": [1, 5, 2, 4]},
        judges=("judge",),
    )
    report = evaluate(
        rows,
        scales={"breakdown": {"scale": "ordinal", "order": ["X", "T", "O"]}},
        detect={"breakdown": DetectSpec(positive=["X"], judge_at_most=2)},
    )
    judge = only(report.detection, rater="judge", language="all")
    assert (judge.f1_positive, judge.f1_negative, judge.accuracy) == pytest.approx(
        (5 / 6, 0.9, 7 / 8)
    )
    ceiling = only(report.detection, rater=HUMAN_CEILING, language="all")
    assert (ceiling.f1_positive, ceiling.f1_negative, ceiling.accuracy) == pytest.approx(
        (2 / 3, 0.8, 0.75)
    )
    assert {r.dimension for r in report.correlation} == {"breakdown"}, "the numbers still correlate"


def test_a_judge_answering_the_detection_view_is_read_by_its_own_answers() -> None:
    """A calibrated judge answers `breakdown=X` itself (true, false, false, false: 1,0,0,0) and
    `breakdown` in positions beside it: its decisions are not put through the threshold meant
    for the raw judge's 1-5 (which would call every position <= 2 a breakdown). Against h1
    (1,0,1,0): TP1 FN1 TN2 -> F1+ 2/3; against h2 (1,0,0,0): all right, F1+ 1; mean 5/6."""
    rows = ratings(
        "breakdown",
        {"h1": ["X", "O", "X", "T"], "h2": ["X", "T", "O", "O"], "judge": [1, 5, 2, 4]},
        judges=("judge",),
    )
    rows += ratings("breakdown", {"calibrated": [0.2, 1.9, 1.1, 1.6]}, judges=("calibrated",))
    rows += ratings("breakdown=X", {"calibrated": [1.0, 0.0, 0.0, 0.0]}, judges=("calibrated",))
    report = evaluate(
        rows,
        scales={"breakdown": {"scale": "ordinal", "order": ["X", "T", "O"]}},
        detect={"breakdown": DetectSpec(positive=["X"], judge_at_most=2)},
    )
    calibrated = only(report.detection, rater="calibrated", language="all")
    assert calibrated.f1_positive == pytest.approx(5 / 6)
    assert only(report.detection, rater="judge", language="all").f1_positive == pytest.approx(5 / 6)
    assert {r.rater for r in report.correlation if r.method == "pearson"} >= {"judge", "calibrated"}
    assert not [n for n in report.notes if "breakdown=X: judges only" in n]


def test_detect_of_labels_against_labels_needs_no_threshold() -> None:
    rows = ratings(
        "breakdown",
        {"h1": ["X", "O", "T", "T"], "h2": ["X", "T", "O", "T"], "judge": ["X", "O", "T", "X"]},
        judges=("judge",),
    )
    report = evaluate(rows, detect={"breakdown": DetectSpec(positive=["T", "X"])})
    judge = only(report.detection, rater="judge", language="all")
    assert judge.dimension == "breakdown=T+X"
    assert judge.accuracy == pytest.approx(0.75)  # 1,0,1,1 against 1,0,1,1 and 1,1,0,1


@pytest.mark.parametrize(
    ("judge", "detect", "message"),
    [
        ([1, 5, 2, 4], DetectSpec(positive=["X"]), "say which numbers are positive"),
        (["X", "O", "X", "O"], DetectSpec(positive=["X"], judge_at_least=4), "answer in numbers"),
        ([1, 5, 2, 4], DetectSpec(positive=["x"], judge_at_most=2), "x not among the humans'"),
    ],
)
def test_detect_says_what_is_missing(judge: list[object], detect: DetectSpec, message: str) -> None:
    rows = ratings("breakdown", {"h1": ["X", "O", "X", "T"], "judge": judge}, judges=("judge",))
    with pytest.raises(DialbenchError, match=message):
        evaluate(
            rows,
            scales={"breakdown": {"scale": "ordinal", "order": ["X", "T", "O"]}},
            detect={"breakdown": detect},
        )


def test_detect_options_are_checked_and_parsed() -> None:
    with pytest.raises(ValidationError, match="not both"):
        DetectSpec(positive=["X"], judge_at_most=2, judge_at_least=4)
    assert parse_detect("breakdown=X:judge<=2") == (
        "breakdown",
        DetectSpec(positive=["X"], judge_at_most=2.0),
    )
    assert parse_detect("breakdown=T,X") == ("breakdown", DetectSpec(positive=["T", "X"]))
    for bad in ("breakdown", "breakdown=", "breakdown=X:judge<2", "breakdown=X:judge<=1.2.3", "=X"):
        with pytest.raises(DialbenchError, match="expected DIMENSION=LABEL"):
            parse_detect(bad)


def test_the_command_prints_f1_beside_the_ceiling(cli: RunCli, tmp_path: Path) -> None:
    humans = long_csv(
        tmp_path / "humans.csv",
        [(r.item_id, r.rater, r.dimension, r.value, r.language, "human")
         for r in crowd(annotators=40, items=30, per_item=10) if r.kind == "human"],
    )  # fmt: skip
    judge = long_csv(
        tmp_path / "judge.csv",
        [(f"t{i}", "gpt", "sensibleness", 1 + 2 * (i % 3), "en", "") for i in range(30)],
    )
    shown = cli(
        "metaeval", "--against", humans, "--predictions", judge, "-o", tmp_path / "out",
        "--pair", "breakdown=sensibleness", "--scale", "breakdown=ordinal:X,T,O",
        "--detect", "breakdown=X:judge<=2", "--bootstrap", "100",
    ).stdout  # fmt: skip
    assert "Detection against each annotator" in shown
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    detected = {d["rater"]: d for d in report["detection"] if d["language"] == "all"}
    assert set(detected) == {"gpt", HUMAN_CEILING}
    assert detected["gpt"]["dimension"] == "breakdown=X"
    assert detected[HUMAN_CEILING]["f1_positive"] is not None
    correlated = {c["rater"] for c in report["correlation"]}
    assert correlated == {"gpt", HUMAN_CEILING}
