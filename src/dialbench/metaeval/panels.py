"""One dimension in one language group, arranged as items x raters: what every statistic reads."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dialbench.metaeval.config import ScaleSpec
from dialbench.metaeval.ratings import UNSCORED
from dialbench.metaeval.scales import encode, infer_scale

ALL_LANGUAGES = "all"


@dataclass(frozen=True)
class Panel:
    dimension: str
    language: str
    spec: ScaleSpec
    labels: list[str]
    humans: pd.DataFrame
    judges: pd.DataFrame
    judges_numeric: bool = False  # judges answer in numbers beside the humans' ordered labels

    @property
    def annotators(self) -> list[str]:
        return list(self.humans.columns)

    def label_of(self, code: float, *, judge: bool = False) -> str:
        """How a code reads to a person: its label, or the number itself."""
        numeric = not self.labels or (judge and self.judges_numeric)
        return f"{code:g}" if numeric else self.labels[int(code)]


def _matrix(rows: pd.DataFrame, scale: str) -> pd.DataFrame:
    """Items x raters. Repeated samples of one rater are averaged (binary: majority, ties = 1;
    nominal: the most frequent code, ties to the lowest)."""
    if rows.empty:
        return pd.DataFrame()
    keys = ["item_id", "rater"]
    if scale == "nominal":
        counts = rows.groupby([*keys, "code"]).size().reset_index(name="n")
        ranked = counts.sort_values(["n", "code"], ascending=[False, True])
        values = ranked.drop_duplicates(keys).set_index(keys)["code"]
    else:
        values = rows.groupby(keys)["code"].mean()
        if scale == "binary":
            values = (values >= 0.5).astype(float)
    return values.unstack("rater").sort_index()


def _judges_numeric(rows: pd.DataFrame, spec: ScaleSpec) -> bool:
    """Whether judges answer in numbers on a dimension humans rate with ordered labels (1-5
    sensibleness paired with DBDC3's X/T/O breakdown): they keep their numbers, and only
    correlations, which compare orders, compare them with the humans."""
    judge_values = rows.loc[rows["kind"] == "judge", "value"]
    return (
        bool(spec.order)
        and not judge_values.empty
        and all(isinstance(v, float) for v in judge_values)
    )


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


def build_panels(
    frame: pd.DataFrame, scales: dict[str, ScaleSpec], notes: list[str]
) -> Iterator[Panel]:
    """Panels for every dimension with human ratings, over all languages and then each one."""
    scored = frame[(frame["dimension"] != UNSCORED) & frame["value"].notna()]
    any_judge = bool((scored["kind"] == "judge").any())
    for dimension, rows in scored.groupby("dimension", sort=True):
        name = str(dimension)
        spec = scales.get(name) or infer_scale(rows["value"])
        if spec is None:
            notes.append(f"{name}: free text with many distinct values, no statistic applies")
            continue
        if not (rows["kind"] == "human").any():
            notes.append(
                f"{name}: judges only, no human ratings to compare with "
                "(--pair HUMAN=JUDGE compares dimensions of different names)"
            )
            continue
        if any_judge and not (rows["kind"] == "judge").any():
            notes.append(
                f"{name}: human ratings only, no judge rates it "
                "(--pair HUMAN=JUDGE compares dimensions of different names)"
            )
        numeric = _judges_numeric(rows, spec)
        if numeric:
            notes.append(f"{name}: the judges answer in numbers, compared by correlation only")
        codes, labels = _codes(rows, spec, name, numeric)
        rows = rows.assign(code=codes)
        languages = sorted(rows["language"].unique())
        for language in [ALL_LANGUAGES, *languages]:
            part = rows if language == ALL_LANGUAGES else rows[rows["language"] == language]
            humans = _matrix(part[part["kind"] == "human"], spec.scale)
            judges = _matrix(part[part["kind"] == "judge"], spec.scale)
            items = humans.index.union(judges.index)
            yield Panel(
                dimension=name,
                language=language,
                spec=spec,
                labels=labels,
                humans=humans.reindex(items),
                judges=judges.reindex(items),
                judges_numeric=numeric,
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
