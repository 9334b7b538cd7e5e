"""One dimension in one language group, arranged as items x raters: what every statistic reads."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from dialbench.errors import DialbenchError
from dialbench.metaeval.config import DetectSpec, ScaleSpec
from dialbench.metaeval.scales import encode, infer_scale
from dialbench.ratings import UNKNOWN_LANGUAGE, UNSCORED, Rating, item_target
from dialbench.schema import ALL_LANGUAGES

ALL_POOLED = (
    "'all' is every language's items pooled: each figure is computed once on the pool (not a "
    "mean of the languages), and its items are the languages' items together"
)
RATING_COLUMNS = ["item_id", "rater", "kind", "dimension", "value", "language"]
SAMPLES_RULE = (
    "a rater who rated an item several times counts once, on the dimension's scale: the majority "
    "label (ties: the positive class of a binary label, the first label in sorted order), the "
    "median ordinal score (the lower middle one of an even number), the mean interval score"
)


def repeated(frame: pd.DataFrame) -> bool:
    """Whether some rater rated an item on a dimension more than once (`judge --samples N`)."""
    return bool(frame.duplicated(["item_id", "rater", "dimension"]).any())


def ratings_frame(
    ratings: Sequence[Rating],
    default_language: str | None = None,
    chatseeds: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """The ratings as a table, each item in one language: the one its ratings name (a judge's
    file often names none), else `default_language`; and in one cluster, what a bootstrap
    resamples whole: its dialogue (`d#3` -> `d`; a pair, its first), or for a self-chat the
    ChatSEED it continues (`chatseeds`, dialogue -> seed)."""
    frame = pd.DataFrame([r.model_dump() for r in ratings], columns=RATING_COLUMNS)
    named = frame[frame["language"] != UNKNOWN_LANGUAGE].drop_duplicates("item_id")
    language = frame["item_id"].map(named.set_index("item_id")["language"])
    frame["language"] = language.astype(object).fillna(default_language or UNKNOWN_LANGUAGE)
    seeds = chatseeds or {}
    dialogues = {item: item_target(item).dialogue_id for item in frame["item_id"].unique()}
    frame["cluster"] = frame["item_id"].map({i: seeds.get(d, d) for i, d in dialogues.items()})
    return frame


@dataclass(frozen=True)
class RatingMatrix:
    dimension: str
    language: str
    spec: ScaleSpec
    labels: list[str]
    humans: pd.DataFrame
    judges: pd.DataFrame
    clusters: pd.Series  # item -> what a bootstrap resamples whole (`ratings_frame`)
    judges_numeric: bool = False  # judges answer in numbers beside the humans' ordered labels

    @property
    def annotators(self) -> list[str]:
        return list(self.humans.columns)

    def on(self, items: pd.Index) -> RatingMatrix:
        """The same matrix on these items only, and the annotators who rated any of them."""
        humans = self.humans.loc[items].dropna(axis=1, how="all")
        return replace(
            self, humans=humans, judges=self.judges.loc[items], clusters=self.clusters.loc[items]
        )

    def judged(self, judge: object) -> pd.Index:
        """The items a judge's figures rest on: those it rated that a human rated too."""
        rated = self.judges[judge].notna() & self.humans.notna().any(axis=1)
        return self.humans.index[rated.to_numpy()]

    def label_of(self, code: float, *, judge: bool = False) -> str:
        """How a code reads to a person: its label, or the number itself."""
        numeric = not self.labels or (judge and self.judges_numeric)
        return f"{code:g}" if numeric else self.labels[int(code)]


def _matrix(rows: pd.DataFrame, scale: str) -> pd.DataFrame:
    """Items x raters. Repeated samples of one rater (`judge --samples N`) become one value on
    the dimension's own scale, never a value between two classes: labels (binary, nominal) take
    the majority, a tie going to the positive class (binary) or to the first label in sorted
    order (nominal); ordinal scores the median, the lower of the two middle values when the
    samples are even in number; interval scores the mean."""
    if rows.empty:
        return pd.DataFrame()
    keys = ["item_id", "rater"]
    grouped = rows.groupby(keys)["code"]
    if scale == "nominal":
        counts = rows.groupby([*keys, "code"]).size().reset_index(name="n")
        ranked = counts.sort_values(["n", "code"], ascending=[False, True])
        values = ranked.drop_duplicates(keys).set_index(keys)["code"]
    elif scale == "binary":
        values = (grouped.mean() >= 0.5).astype(float)
    elif scale == "ordinal":
        values = grouped.quantile(0.5, interpolation="lower")
    else:
        values = grouped.mean()
    return values.unstack("rater").sort_index()


def _all_numbers(values: pd.Series) -> bool:
    return not values.empty and all(isinstance(v, float) for v in values)


def _judges_numeric(rows: pd.DataFrame, spec: ScaleSpec) -> bool:
    """Whether judges answer in numbers on a dimension humans rate with ordered labels (1-5
    sensibleness paired with DBDC3's X/T/O breakdown): they keep their numbers, and only
    correlations, which compare orders, compare them with the humans."""
    return bool(spec.order) and _all_numbers(rows.loc[rows["kind"] == "judge", "value"])


def _judges_beyond_binary(rows: pd.DataFrame, spec: ScaleSpec) -> bool:
    """Whether judges answer in numbers other than 0/1 on a dimension humans label 0/1 (a 1-5
    score beside an issue ticked or not): binary labels are nominal, nothing correlates with
    them, and only a threshold (`--detect`) makes the judge's numbers labels."""
    judged = rows.loc[rows["kind"] == "judge", "value"]
    return spec.scale == "binary" and _all_numbers(judged) and not set(judged) <= {0.0, 1.0}


def _codes(
    rows: pd.DataFrame, spec: ScaleSpec, name: str, judges_numeric: bool
) -> tuple[pd.Series, list[str]]:
    """The values as codes on the dimension's scale (numeric judges' as they are)."""
    if not judges_numeric:
        return encode(rows["value"], spec, name)
    judge = rows["kind"] == "judge"
    human_codes, labels = encode(rows.loc[~judge, "value"], spec, name)
    judge_codes = rows.loc[judge, "value"].astype(float)
    return pd.concat([human_codes, judge_codes]).reindex(rows.index), labels


def _language_matrices(
    rows: pd.DataFrame, name: str, spec: ScaleSpec, labels: list[str], numeric: bool
) -> Iterator[RatingMatrix]:
    """Matrices of coded rows over all languages, then each one."""
    for language in [ALL_LANGUAGES, *sorted(rows["language"].unique())]:
        part = rows if language == ALL_LANGUAGES else rows[rows["language"] == language]
        humans = _matrix(part[part["kind"] == "human"], spec.scale)
        judges = _matrix(part[part["kind"] == "judge"], spec.scale)
        items = humans.index.union(judges.index)
        clusters = part.drop_duplicates("item_id").set_index("item_id")["cluster"]
        yield RatingMatrix(
            dimension=name,
            language=language,
            spec=spec,
            labels=labels,
            humans=humans.reindex(items),
            judges=judges.reindex(items),
            clusters=clusters.reindex(items),
            judges_numeric=numeric,
        )


def _label(value: object) -> str:
    """A rating as the label a person writes: `X`, or `2` for the number 2.0."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def _detected(rows: pd.DataFrame, name: str, detect: DetectSpec) -> pd.Series:
    """1.0 where a rating says the positive class, else 0.0: by label, or by the threshold for
    judges that answer in numbers."""
    judge = rows["kind"] == "judge"
    labels = rows["value"].map(_label)
    known = set(labels[~judge])
    unknown = sorted(set(detect.positive) - known)
    if unknown:
        raise DialbenchError(
            f"detect {name}: {', '.join(unknown)} not among the humans' labels "
            f"({', '.join(sorted(known))})"
        )
    said = labels.isin(detect.positive).astype(float)
    judge_numbers = _all_numbers(rows.loc[judge, "value"])
    if not detect.thresholded:
        if judge_numbers and not _all_numbers(rows.loc[~judge, "value"]):
            raise DialbenchError(
                f"detect {name}: the judges answer in numbers and the humans in labels; say "
                "which numbers are positive with judge_at_most or judge_at_least"
            )
        return said
    if judge.any() and not judge_numbers:
        raise DialbenchError(
            f"detect {name}: judge_at_most and judge_at_least are for judges that answer in numbers"
        )
    said[judge] = rows.loc[judge, "value"].map(detect.judge_says_positive).astype(float)
    return said


def _view_rows(
    rows: pd.DataFrame, answers: pd.DataFrame, name: str, view: DetectSpec
) -> pd.DataFrame:
    """A dimension's rows as its detection view: by label or threshold, except a judge that
    answers the view itself (`breakdown=X`: true or false, as a calibrated judge does), which
    is read by its own answers."""
    rest = rows[~rows["rater"].isin(set(answers["rater"]))]
    own = answers.assign(code=pd.to_numeric(answers["value"], errors="coerce"))
    return pd.concat([rest.assign(code=_detected(rest, name, view)), own])


def rating_matrices(
    frame: pd.DataFrame,
    scales: dict[str, ScaleSpec],
    notes: list[str],
    detect: dict[str, DetectSpec] | None = None,
) -> Iterator[RatingMatrix]:
    """Matrices for every dimension with human ratings, over all languages and then each one;
    a dimension in `detect` also as its binary detection view."""
    detect = detect or {}
    scored = frame[(frame["dimension"] != UNSCORED) & frame["value"].notna()]
    any_judge = bool((scored["kind"] == "judge").any())
    views = {spec.dimension(name): name for name, spec in detect.items()}
    answered = scored[scored["dimension"].isin(views) & (scored["kind"] == "judge")]
    for name in sorted(set(detect) - set(scored.loc[scored["kind"] == "human", "dimension"])):
        notes.append(f"detect {name}: no human ratings of that dimension")
    for dimension, rows in scored.groupby("dimension", sort=True):
        name = str(dimension)
        if name in views and not (rows["kind"] == "human").any():
            continue  # judges' answers of a detection view join that view's matrix
        if not (rows["kind"] == "human").any():
            notes.append(
                f"{name}: judges only, no human ratings to compare with "
                "(--pair HUMAN=JUDGE compares dimensions of different names)"
            )
            continue
        spec = scales.get(name) or infer_scale(rows.loc[rows["kind"] == "human", "value"])
        if spec is None:
            notes.append(f"{name}: free text with many distinct values, no statistic applies")
            continue
        if any_judge and not (rows["kind"] == "judge").any():
            notes.append(
                f"{name}: human ratings only, no judge rates it "
                "(--pair HUMAN=JUDGE compares dimensions of different names)"
            )
        view = detect.get(name)
        if _judges_beyond_binary(rows, spec):
            notes.append(
                f"{name}: the humans' labels are binary (nominal: no order to correlate with) and "
                "the judges answer in other numbers: "
                + (
                    f"compared as {view.dimension(name)} by their threshold"
                    if view
                    else f"compared once a threshold makes them labels, --detect {name}=1:judge>=N"
                )
            )
            humans = rows[rows["kind"] == "human"]
            codes, labels = encode(humans["value"], spec, name)
            yield from _language_matrices(humans.assign(code=codes), name, spec, labels, False)
        else:
            numeric = _judges_numeric(rows, spec)
            if numeric:
                notes.append(
                    f"{name}: the judges answer in numbers, compared by correlation"
                    + (f" and, by their threshold, as {view.dimension(name)}" if view else " only")
                )
            codes, labels = _codes(rows, spec, name, numeric)
            yield from _language_matrices(rows.assign(code=codes), name, spec, labels, numeric)
        if view is not None:
            answers = answered[answered["dimension"] == view.dimension(name)]
            yield from _language_matrices(
                _view_rows(rows, answers, name, view),
                view.dimension(name),
                ScaleSpec(scale="binary"),
                [],
                False,
            )


def shared(a: pd.Series, b: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """The two raters' values on the items both rated."""
    both = a.notna() & b.notna()
    return a[both].to_numpy(), b[both].to_numpy()


def defined(value: float) -> float | None:
    """A statistic, or None where it is undefined: NaN never leaves this package."""
    return None if value is None or not np.isfinite(value) else float(value)


def average(results: list[dict[str, float]]) -> tuple[dict[str, float | None], list[str]]:
    """Per-metric mean over several references, ignoring undefined ones; also which metrics were
    undefined against every reference."""
    keys = list(results[0]) if results else []
    means: dict[str, float | None] = {}
    for key in keys:
        finite = [r[key] for r in results if np.isfinite(r[key])]
        means[key] = float(np.mean(finite)) if finite else None
    return means, [key for key in keys if means[key] is None]
