"""The figures a paper would print: the human ceiling on the judges' own items, with an interval;
"all" as the pooled languages; one inference (a bootstrap over dialogues) for p-values and
intervals; repeated samples kept on the dimension's scale; binary labels read as nominal."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau, pearsonr, spearmanr

from dialbench.metaeval import weighted
from dialbench.metaeval.api import metaeval
from dialbench.metaeval.config import DetectSpec, MetaevalConfig, MetaEvalOptions
from dialbench.metaeval.detection import confusion_scores, resampled_f1
from dialbench.metaeval.evaluate import MetaEvalTables, meta_evaluate
from dialbench.metaeval.inference import observed_and_resampled
from dialbench.metaeval.rating_matrix import rating_matrices, ratings_frame
from dialbench.metaeval.references import HUMAN_CEILING, ceiling_matrices
from dialbench.metaeval.weighted import METHODS
from dialbench.ratings import Rating
from dialbench.resampling import MIN_CLUSTERS, ClusterResamples
from dialbench.schema import Annotation, Dialogue, Target, Turn
from dialbench.store import RunStore
from tests.conftest import RunCli
from tests.metaeval.test_figures import only
from tests.metaeval.test_metaeval_hardening import long_csv

ORDER = {"breakdown": {"scale": "ordinal", "order": ["X", "T", "O"]}}
DETECT = {"breakdown": DetectSpec(positive=["X"], judge_at_most=2)}


def rating(item: str, rater: str, value: float | str, language: str) -> Rating:
    kind = "judge" if rater == "judge" else "human"
    return Rating(
        item_id=item, rater=rater, kind=kind, dimension="breakdown", value=value, language=language
    )


def dbdc_like(
    dialogues: int, turns: int, language: str, judged: int | None = None, seed: int = 0
) -> list[Rating]:
    """Turns `d#t` labelled X/T/O by 6 of a pool of 12 annotators; one judge scores 1-5 the turns
    of the first `judged` dialogues only (all when None), following the truth with noise."""
    rng = random.Random(seed)
    rows: list[Rating] = []
    for d in range(dialogues):
        for t in range(turns):
            item, truth = f"{language}{d}#{t}", rng.randrange(3)
            for annotator in rng.sample(range(12), 6):
                label = truth if rng.random() < 0.7 else rng.randrange(3)
                rows.append(rating(item, f"{language}-h{annotator}", "XTO"[label], language))
            if judged is None or d < judged:
                score = min(5.0, max(1.0, 1 + 2 * truth + rng.choice([-1, 0, 1])))
                rows.append(rating(item, "judge", score, language))
    return rows


def evaluate(rows: list[Rating], resamples: int = 200) -> MetaEvalTables:
    options = MetaEvalOptions(
        scales=ORDER,  # type: ignore[arg-type]
        detect=DETECT,
        bootstrap_resamples=resamples,
    )
    return meta_evaluate(rows, options=options)


def test_the_ceiling_is_computed_on_the_judges_items_with_an_interval() -> None:
    """The judge rates 4 of 12 dialogues: each ceiling rests on exactly its items, and equals the
    ceiling of a run that holds those items only."""
    rows = dbdc_like(dialogues=12, turns=5, language="en", judged=4)
    report = evaluate(rows)
    judged_items = {r.item_id for r in rows if r.kind == "judge"}
    alone = evaluate([r for r in rows if r.item_id in judged_items])
    for table in ("correlation", "detection"):
        where = {"method": "pearson"} if table == "correlation" else {}
        judge = only(getattr(report, table), rater="judge", language="en", **where)
        ceiling = only(getattr(report, table), rater=HUMAN_CEILING, language="en", **where)
        same = only(getattr(alone, table), rater=HUMAN_CEILING, language="en", **where)
        assert judge.n_items == ceiling.n_items == len(judged_items) == 20
        assert judge.n_dialogues == ceiling.n_dialogues == 4
        assert ceiling == same
        value, low, high = (
            (ceiling.r, ceiling.ci_low, ceiling.ci_high)
            if table == "correlation"
            else (ceiling.f1_positive, ceiling.f1_positive_low, ceiling.f1_positive_high)
        )
        assert low is not None
        assert high is not None
        assert low <= value <= high
    matrix = next(
        p
        for p in rating_matrices(ratings_frame(rows), {}, [], {})
        if p.language == "en" and not p.judges.empty
    )
    ((name, part),) = ceiling_matrices(matrix)
    assert name == HUMAN_CEILING
    assert set(part.humans.index) == set(matrix.judged("judge")) == judged_items


def test_judges_of_different_items_get_a_ceiling_each() -> None:
    rows = dbdc_like(dialogues=6, turns=3, language="en", judged=2)
    rows += [
        r.model_copy(update={"rater": "other"})
        for r in dbdc_like(dialogues=6, turns=3, language="en", judged=5)
        if r.kind == "judge"
    ]
    report = evaluate(rows)
    ceilings = {
        r.rater: r.n_items
        for r in report.correlation
        if r.rater.startswith(HUMAN_CEILING) and r.method == "pearson" and r.language == "en"
    }
    assert ceilings == {
        f"{HUMAN_CEILING} on the items of judge": 6,
        f"{HUMAN_CEILING} on the items of other": 15,
    }


def test_all_is_every_language_pooled_in_every_table() -> None:
    """Two languages with disjoint annotators: each 'all' row counts the items and dialogues of
    both (the mean of the annotators' shared items once made it the larger language's)."""
    rows = dbdc_like(dialogues=5, turns=4, language="en", judged=3) + dbdc_like(
        dialogues=4, turns=5, language="ja", judged=2, seed=1
    )
    report = evaluate(rows)
    assert "'all' is every language's items pooled" in " ".join(report.notes)
    for table in (report.correlation, report.detection):
        for rater in ("judge", HUMAN_CEILING):
            counts = {r.language: (r.n_items, r.n_dialogues) for r in table if r.rater == rater}
            assert counts == {"en": (12, 3), "ja": (10, 2), "all": (22, 5)}, (rater, counts)
    agreement = {r.language: r.n_items for r in report.agreement if r.dimension == "breakdown"}
    assert agreement == {"en": 20, "ja": 20, "all": 40}


def test_turns_of_one_dialogue_are_not_independent_evidence() -> None:
    """Ten identical copies of every turn of a dialogue add nothing: p-value and interval are
    those of one turn per dialogue (a test that counted turns, as scipy's p-value did, would call
    the copies ten times the evidence). p < 0.05 exactly when the interval leaves out zero."""
    rng = np.random.default_rng(3)
    truth = rng.integers(1, 6, 14).astype(float)
    noisy = np.clip(truth + rng.integers(-2, 3, 14), 1, 5)

    def rows(copies: int) -> list[Rating]:
        out = []
        for d in range(14):
            for t in range(copies):
                for rater, value, kind in (("h1", truth[d], "human"), ("judge", noisy[d], "judge")):
                    out.append(Rating(item_id=f"d{d}#{t}", rater=rater, kind=kind,  # type: ignore[arg-type]
                                      dimension="overall", value=value, language="en"))  # fmt: skip
        return out

    def figures(report: MetaEvalTables) -> list[float]:
        return [
            figure
            for c in report.correlation
            if c.language == "all"
            for figure in (c.r, c.p_value, c.ci_low, c.ci_high, c.n_dialogues)
        ]

    once = meta_evaluate(rows(1), options=MetaEvalOptions(bootstrap_resamples=500))
    tenfold = meta_evaluate(rows(10), options=MetaEvalOptions(bootstrap_resamples=500))
    assert figures(once) == pytest.approx(figures(tenfold))
    naive = pearsonr(np.repeat(noisy, 10), np.repeat(truth, 10))[1]
    pearson = only(tenfold.correlation, method="pearson", language="all")
    assert pearson.p_value > 100 * naive  # type: ignore[operator]
    for row in once.correlation:
        assert row.n_dialogues == 14
        excludes_zero = row.ci_low > 0 or row.ci_high < 0  # type: ignore[operator]
        assert (row.p_value < 0.05) == excludes_zero  # type: ignore[operator]


def test_fewer_than_ten_dialogues_are_warned_about() -> None:
    report = evaluate(dbdc_like(dialogues=3, turns=6, language="en"))
    judge = only(report.correlation, rater="judge", method="pearson", language="en")
    assert judge.n_dialogues == 3 < MIN_CLUSTERS
    assert "only 3 dialogue(s)" in (judge.note or "")
    assert any(n.startswith("fewer than 10 dialogues behind") for n in report.notes)
    assert any("bootstrap over dialogues" in n for n in report.notes)


VALUES = st.lists(st.integers(0, 4), min_size=3, max_size=12)


@settings(max_examples=150, deadline=None)
@given(VALUES, VALUES, st.lists(st.lists(st.integers(0, 3), min_size=12, max_size=12), max_size=4))
def test_resampled_correlations_are_scipys_on_the_repeated_items(
    xs: list[int], ys: list[int], rows: list[list[int]]
) -> None:
    n = min(len(xs), len(ys))
    x, y = np.array(xs[:n], float), np.array(ys[:n], float)
    weights = np.array([[1] * n] + [row[:n] for row in rows], float)
    scipy = {"pearson": pearsonr, "spearman": spearmanr, "kendall": kendalltau}
    paths = ((weighted.FEW_VALUES, weighted.PAIR_MATRIX_MAX), (0, 1000), (0, 0))  # Kendall's three
    for few_values, pair_matrix_max in paths:
        with (
            patch.object(weighted, "FEW_VALUES", few_values),
            patch.object(weighted, "PAIR_MATRIX_MAX", pair_matrix_max),
        ):
            found = {method: function(x, y, weights) for method, function in METHODS.items()}
        for method, got in found.items():
            for b, row in enumerate(weights.astype(int)):
                a, c = np.repeat(x, row), np.repeat(y, row)
                if (row > 0).sum() < 3 or np.ptp(a) == 0 or np.ptp(c) == 0:
                    assert math.isnan(got[b])
                else:
                    assert got[b] == pytest.approx(scipy[method](a, c)[0]), method


def test_resampled_f1_is_the_mean_over_pairs_on_the_repeated_items() -> None:
    rng = np.random.default_rng(0)
    labels = rng.choice([0.0, 1.0, np.nan], size=(9, 5), p=[0.4, 0.3, 0.3])
    weights = np.vstack([np.ones(9), rng.integers(0, 3, size=(6, 9))]).astype(float)
    got = resampled_f1(labels, labels, weights, same_raters=True)
    for b, row in enumerate(weights.astype(int)):
        repeated = np.repeat(labels, row, axis=0)
        scores, shared = confusion_scores(repeated, repeated)
        np.fill_diagonal(shared, 0)
        f1 = scores["f1_positive"][(shared > 0) & np.isfinite(scores["f1_positive"])]
        assert got[b] == pytest.approx(f1.mean() if f1.size else np.nan, nan_ok=True)


def test_resamples_draw_whole_dialogues_and_chatseeds() -> None:
    """Turns of a dialogue come together, and so do self-chats continuing one ChatSEED."""
    items = ["a#0", "a#1", "a#2", "b#0", "c#0", "c#1", "s1", "s2"]
    rows = [Rating(item_id=i, rater="h", kind="human", dimension="x", value=1.0) for i in items]
    frame = ratings_frame(rows, chatseeds={"s1": "seed", "s2": "seed"})
    clusters = frame.set_index("item_id")["cluster"]
    assert list(clusters) == ["a", "a", "a", "b", "c", "c", "seed", "seed"]
    drawn = ClusterResamples.draw(clusters, 50, seed=1)
    assert drawn.n_clusters == 4
    weights = observed_and_resampled(drawn)
    assert (weights[0] == 1).all()
    for row in weights[1:]:
        assert row[0] == row[1] == row[2]
        assert row[4] == row[5]
        assert row[6] == row[7]
        assert row[[0, 3, 4, 6]].sum() == 4


def test_a_run_resamples_self_chats_by_their_chatseed(tmp_path: Path) -> None:
    """Six self-chats continuing three ChatSEEDs, rated by two humans and a judge: the figures
    rest on 3 clusters, not 6."""
    seeds = [Dialogue(language="en", turns=[Turn(role="user", text=f"seed {k}")]) for k in range(3)]
    chats = [
        Dialogue(
            language="en",
            source="selfchat",
            turns=[Turn(role="user", text=f"chat {k}")],
            metadata={"chatseed_dialogue": seeds[k % 3].id},
        )
        for k in range(6)
    ]
    with RunStore.open(tmp_path / "run") as store, store.invocation("import") as run:
        store.add([*seeds, *chats], run)
        store.add(
            [
                Annotation(target=Target(dialogue_id=d.id), annotator_id=a,
                           labels={"overall": float(1 + (k + (a == "h2")) % 5)})
                for k, d in enumerate(chats)
                for a in ("h1", "h2")
            ],
            run,
        )  # fmt: skip
    judge = long_csv(
        tmp_path / "judge.csv",
        [(d.id, "gpt", "overall", 1 + k % 5, "en", "judge") for k, d in enumerate(chats)],
    )
    done = metaeval(
        MetaevalConfig(predictions=[judge], options=MetaEvalOptions(bootstrap_resamples=100)),
        tmp_path / "run",
    )
    assert {r.n_dialogues for r in done.report.correlation} == {3}
    assert {r.n_items for r in done.report.correlation} == {6}


def test_repeated_samples_stay_on_the_scale() -> None:
    """Two samples of 2 and 3 on a 1-5 scale are 2 (the lower median), not a class 2.5; three
    labels O, X, X are X; a tie of labels goes to the first in sorted order."""
    rows = [
        Rating(item_id=f"i{i}", rater=f"h{h}", kind="human", dimension=dim, value=v, language="en")
        for i in range(4)
        for h in range(2)
        for dim, v in (("overall", float(1 + i)), ("label", "AB"[i % 2]))
    ]
    samples = {"overall": [2.0, 3.0], "label": ["O", "X", "X"]}
    rows += [
        Rating(item_id="i0", rater="judge", kind="judge", dimension=dim, value=v, language="en")
        for dim, values in samples.items()
        for v in values
    ]
    rows += [
        Rating(item_id="i1", rater="judge", kind="judge", dimension="label", value=v, language="en")
        for v in ("X", "O")
    ]
    report = meta_evaluate(rows, options=MetaEvalOptions(bootstrap_resamples=100))
    judged = {
        (d.dimension, d.value): d.count
        for d in report.distribution
        if d.rater == "judge" and d.language == "all"
    }
    assert judged == {("overall", "2"): 1, ("label", "X"): 1, ("label", "O"): 1}
    assert any(n.startswith("a rater who rated an item several times") for n in report.notes)


def test_binary_labels_are_nominal_beside_a_judge_answering_in_numbers(
    cli: RunCli, tmp_path: Path
) -> None:
    """Humans tick an issue (0/1); the judge answers 1-5. The labels stay binary (alpha nominal,
    no correlation with a binary label); a threshold compares the judge by detection."""
    humans = [(f"d{i}", h, "rep", (i + (h == "h2" and i % 5 == 0)) % 2, "en", "human")
              for i in range(30) for h in ("h1", "h2")]  # fmt: skip
    judge = [(f"d{i}", "gpt", "rep", 4 if i % 2 else 2, "en", "judge") for i in range(30)]
    path = long_csv(tmp_path / "all.csv", humans + judge)
    shown = cli("metaeval", "--against", path, "--bootstrap", "100", "-o", tmp_path / "a").stdout
    report = json.loads((tmp_path / "a" / "report.json").read_text())
    (agreement,) = [a for a in report["agreement"] if a["language"] == "all"]
    assert (agreement["scale"], agreement["alpha_level"]) == ("binary", "nominal")
    assert report["correlation"] == []
    assert "the humans' labels are binary (nominal" in shown
    assert "--detect rep=1:judge>=N" in shown
    cli("metaeval", "--against", path, "--detect", "rep=1:judge>=3", "--bootstrap", "100",
        "-o", tmp_path / "b")  # fmt: skip
    detected = json.loads((tmp_path / "b" / "report.json").read_text())["detection"]
    gpt = next(d for d in detected if d["rater"] == "gpt" and d["language"] == "all")
    assert gpt["dimension"] == "rep=1"
    assert gpt["f1_positive"] > 0.8


def test_the_terminal_fits_80_columns_and_counts_what_it_wrote(cli: RunCli, tmp_path: Path) -> None:
    rows = dbdc_like(dialogues=4, turns=3, language="en") + dbdc_like(
        dialogues=4, turns=3, language="ja", seed=1
    )
    ratings = long_csv(
        tmp_path / "h.csv",
        [(r.item_id, r.rater if r.kind == "human" else "local:qwen2.5-1.5b", r.dimension,
          r.value, r.language, r.kind) for r in rows],
    )  # fmt: skip
    humans = long_csv(
        tmp_path / "humans.csv",
        [(r.item_id, r.rater, r.dimension, r.value, r.language, r.kind)
         for r in rows if r.kind == "human"],
    )  # fmt: skip
    options = ("--scale", "breakdown=ordinal:X,T,O", "--bootstrap", "100")
    done = cli("metaeval", "--against", ratings, *options, "--detect", "breakdown=X:judge<=2",
               "-o", tmp_path / "judged")  # fmt: skip
    lines = done.stdout.splitlines()
    assert "local:qwen2.5-1.5b" in done.stdout
    assert max(len(line) for line in lines if not line.startswith(("note:", "wrote"))) <= 80
    alone = cli("metaeval", "--against", humans, *options, "-o", tmp_path / "humans")
    assert not list((tmp_path / "humans").glob("*.png"))  # no judge: nothing to plot
    wrote = next(line for line in alone.stdout.splitlines() if line.startswith("wrote"))
    assert wrote.startswith("wrote 6 files (report.md, report.json, 4 CSV tables)")


def test_agreement_alone_is_the_full_reports_agreement() -> None:
    """What the web app shows live: alpha and kappa, without the resampled judge figures."""
    rows = dbdc_like(dialogues=4, turns=3, language="en")
    full = evaluate(rows)
    alone = meta_evaluate(
        rows,
        options=MetaEvalOptions(scales=ORDER, detect=DETECT),  # type: ignore[arg-type]
        agreement_only=True,
    )
    assert alone.agreement == full.agreement
    assert (alone.correlation, alone.detection) == ([], [])


def test_a_run_whose_judge_rated_a_subset_gets_the_ceiling_on_that_subset(
    cli: RunCli, tmp_path: Path
) -> None:
    """A run's humans label every chatbot turn of 6 dialogues in en and ja; the judge (a
    predictions file) rates the turns of 2 dialogues per language. Every judge row and the
    ceiling beside it rest on the same turns and dialogues, per language and pooled."""
    rows = dbdc_like(dialogues=6, turns=4, language="en", judged=2) + dbdc_like(
        dialogues=6, turns=4, language="ja", judged=2, seed=1
    )
    names = {r.item_id.split("#")[0]: r.language for r in rows}
    dialogues = {
        name: Dialogue(
            language=language,
            turns=[
                Turn(role=role, text=f"{name} {t}")
                for t in range(4)
                for role in ("user", "assistant")
            ],
        )
        for name, language in names.items()
    }
    ids = {name: d.id for name, d in dialogues.items()}

    def turn(item: str) -> tuple[str, int]:
        name, index = item.split("#")
        return ids[name], 2 * int(index) + 1

    with RunStore.open(tmp_path / "run") as store, store.invocation("import") as run:
        store.add(list(dialogues.values()), run)
        store.add(
            [
                Annotation(
                    target=Target(dialogue_id=turn(r.item_id)[0], turn_index=turn(r.item_id)[1]),
                    annotator_id=r.rater,
                    labels={"breakdown": r.value},
                )
                for r in rows
                if r.kind == "human"
            ],
            run,
        )
    judge = long_csv(
        tmp_path / "judge.csv",
        [("{}#{}".format(*turn(r.item_id)), "gpt", "breakdown", r.value, "", "judge")
         for r in rows if r.kind == "judge"],
    )  # fmt: skip
    cli("metaeval", tmp_path / "run", "--predictions", judge, "--scale", "breakdown=ordinal:X,T,O",
        "--detect", "breakdown=X:judge<=2", "--bootstrap", "100")  # fmt: skip
    report = json.loads((tmp_path / "run" / "metaeval" / "report.json").read_text())
    for table in ("correlation", "detection"):
        counts: dict[str, dict[str, tuple[int, int]]] = {}
        for row in report[table]:
            counts.setdefault(row["rater"], {})[row["language"]] = (
                row["n_items"],
                row["n_dialogues"],
            )
        assert (
            counts["gpt"]
            == counts[HUMAN_CEILING]
            == {
                "en": (8, 2),
                "ja": (8, 2),
                "all": (16, 4),
            }
        ), table
        ceiling = [r for r in report[table] if r["rater"] == HUMAN_CEILING]
        assert all(r["ci_low" if table == "correlation" else "f1_positive_low"] is not None
                   for r in ceiling)  # fmt: skip


def pinned_ratings() -> list[Rating]:
    """Twelve dialogues in en, four in ja (fewer than MIN_CLUSTERS), a judge following the truth
    and one scoring at random (a p-value above the floor)."""
    rows = dbdc_like(dialogues=12, turns=3, language="en") + dbdc_like(4, 3, "ja", seed=1)
    rng = random.Random(5)
    coin = [r.model_copy(update={"rater": "coin", "value": float(rng.randint(1, 5))})
            for r in rows if r.kind == "judge"]  # fmt: skip
    return rows + coin


def test_intervals_and_p_values_are_the_pinned_figures() -> None:
    """The figures of fixed ratings and seed, pinned exactly: a change to how draws, intervals
    or p-values are computed must show here, never pass unseen. Bit-stable by construction:
    draws are integers, the weighted correlations and F1 are sums (numpy's pairwise order),
    products, quotients and square roots, all correctly rounded, the matrix products are of
    integer counts (exact through any BLAS), quantiles interpolate linearly and p-values are
    counts; no exp, log or optimizer. Checked: the same bits with numpy's AVX2 kernels for its
    AVX-512 ones and OpenBLAS's Haswell or Prescott kernels."""
    report = evaluate(pinned_ratings(), resamples=150)
    correlation = {
        (r.language, r.rater, r.method): (r.r, r.p_value, r.ci_low, r.ci_high)
        for r in report.correlation
    }
    detection = {
        (r.language, r.rater): (r.f1_positive, r.f1_positive_low, r.f1_positive_high)
        for r in report.detection
    }
    notes = {n for r in report.correlation + report.detection if r.note for n in r.note.split("; ")}
    assert correlation == PINNED_CORRELATION
    assert detection == PINNED_DETECTION
    assert notes == PINNED_NOTES


# fmt: off
PINNED_CORRELATION = {  # (language, rater, method): (r, p-value, low, high)
    ("all", "coin", "pearson"):
        (-0.13464914711777298, 0.18543046357615894, -0.3711955696073694, 0.09181577562265346),
    ("all", "coin", "spearman"):
        (-0.10582295692109729, 0.2913907284768212, -0.36662968505342536, 0.12422894961846506),
    ("all", "coin", "kendall"):
        (-0.07943344423538942, 0.304635761589404, -0.29336114147814346, 0.09420730129228339),
    ("all", "judge", "pearson"):
        (0.8753029134834299, 0.013245033112582781, 0.8312299761383547, 0.9146399194686099),
    ("all", "judge", "spearman"):
        (0.8684629954759288, 0.013245033112582781, 0.8036676379800296, 0.9130897896206819),
    ("all", "judge", "kendall"):
        (0.7288000394857109, 0.013245033112582781, 0.6510396915878938, 0.8101646989106055),
    ("all", "human (ceiling)", "pearson"):
        (0.6494857420681913, None, 0.45610906059015893, 0.7452375939419549),
    ("all", "human (ceiling)", "spearman"):
        (0.5915560314708378, None, 0.36128817736237234, 0.7155186917821263),
    ("all", "human (ceiling)", "kendall"):
        (0.5225655341123917, None, 0.32523555781189567, 0.652985256037665),
    ("en", "coin", "pearson"):
        (-0.08219494475475735, 0.4503311258278146, -0.3579700970200641, 0.12458563710249149),
    ("en", "coin", "spearman"):
        (-0.043391041294331294, 0.6754966887417219, -0.30822500089316673, 0.18417775394585578),
    ("en", "coin", "kendall"):
        (-0.03354101966249685, 0.6622516556291391, -0.24361086098479928, 0.13033604599581006),
    ("en", "judge", "pearson"):
        (0.8761401620440572, 0.013245033112582781, 0.8273534988185919, 0.937466776248682),
    ("en", "judge", "spearman"):
        (0.8732607305598209, 0.013245033112582781, 0.7931664751617474, 0.9387518305134878),
    ("en", "judge", "kendall"):
        (0.7524043736090799, 0.013245033112582781, 0.647157926905784, 0.855605036508062),
    ("en", "human (ceiling)", "pearson"):
        (0.646688956633413, None, 0.5285676373976337, 0.746834353631049),
    ("en", "human (ceiling)", "spearman"):
        (0.6335401649634177, None, 0.522429076819346, 0.7176149016460467),
    ("en", "human (ceiling)", "kendall"):
        (0.5604618405252638, None, 0.47053062881595464, 0.6510150346340087),
    ("ja", "coin", "pearson"):
        (-0.32980474939923465, 0.18666666666666668, -0.6997986229187813, 0.4999999999999999),
    ("ja", "coin", "spearman"):
        (-0.35113595503086253, 0.29333333333333333, -0.8406783877666775, 0.5313689313240572),
    ("ja", "coin", "kendall"):
        (-0.2886751345948129, 0.29333333333333333, -0.7602927259092271, 0.47809144373375745),
    ("ja", "judge", "pearson"):
        (0.8750920093301996, 0.013245033112582781, 0.8591717759962553, 0.9499239234725266),
    ("ja", "judge", "spearman"):
        (0.6911680973950326, 0.013245033112582781, 0.5482928716362921, 0.8145980644684225),
    ("ja", "judge", "kendall"):
        (0.4642857142857143, 0.013245033112582781, 0.37247222138196034, 0.6854098458201351),
    ("ja", "human (ceiling)", "pearson"):
        (0.6522825275029697, None, 0.2686868593435844, 0.8669431449859519),
    ("ja", "human (ceiling)", "spearman"):
        (0.5495718979782579, None, 0.06275773324125407, 0.842950129225164),
    ("ja", "human (ceiling)", "kendall"):
        (0.48466922769951953, None, 0.06053045222719734, 0.7912735030566095),
}
PINNED_DETECTION = {  # (language, rater): (F1+, low, high)
    ("all", "coin"): (0.34307690095733573, 0.16088570859083343, 0.45715710353944666),
    ("all", "judge"): (0.7634717134717134, 0.628235599233168, 0.8249608102759919),
    ("all", "human (ceiling)"): (0.6264003673094583, 0.482240336316485, 0.6738293795010429),
    ("en", "coin"): (0.3131379288987985, 0.17453155130544837, 0.4257110040061359),
    ("en", "judge"): (0.7231074481074481, 0.5604879274765638, 0.8434188613817097),
    ("en", "human (ceiling)"): (0.653968253968254, 0.432276474878814, 0.7141539462489365),
    ("ja", "coin"): (0.373015873015873, 0.041666666666666664, 0.5559861111111113),
    ("ja", "judge"): (0.8038359788359789, 0.7024893162393163, 0.8562770562770563),
    ("ja", "human (ceiling)"): (0.5954469507101087, 0.45261594202898553, 0.7171717171717172),
}
# fmt: on
PINNED_NOTES = {
    "1 of 150 resamples undefined, left out",
    "mean over 12 annotator(s), each against the mean of the others",
    "mean over 24 annotator(s), each against the mean of the others",
    "only 4 dialogue(s): unreliable interval",
}
