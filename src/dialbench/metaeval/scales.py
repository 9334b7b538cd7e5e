"""What kind of values a dimension holds, which decides the statistics that apply to it.

binary (issue present or not), nominal (unordered labels), ordinal (scores like 1-5 or 0/1/2, or
labels given an order such as O < T < X), interval (continuous scores). Inferred from the values
unless the user says (`--scale breakdown=ordinal:O,T,X`).
"""

from __future__ import annotations

import re
from typing import Literal

import pandas as pd

from dialbench.errors import DialbenchError
from dialbench.metaeval.config import SCALES, DetectSpec, Scale, ScaleSpec

KRIPPENDORFF_LEVEL: dict[Scale, Literal["nominal", "ordinal", "interval"]] = {
    "binary": "nominal",
    "nominal": "nominal",
    "ordinal": "ordinal",
    "interval": "interval",
}
MAX_LABELS = 20
MAX_ORDINAL_POINTS = 11


def parse_scale(option: str) -> tuple[str, ScaleSpec]:
    """`DIMENSION=SCALE` or `DIMENSION=ordinal:LOW,...,HIGH`."""
    dimension, _, rest = option.partition("=")
    scale, _, order = rest.partition(":")
    if not dimension or scale not in SCALES:
        raise DialbenchError(
            f"--scale {option!r}: expected DIMENSION=SCALE with SCALE one of {', '.join(SCALES)}"
        )
    labels = [label.strip() for label in order.split(",") if label.strip()]
    if labels and scale != "ordinal":
        raise DialbenchError(f"--scale {option!r}: only an ordinal scale takes an order")
    return dimension, ScaleSpec(scale=scale, order=labels)


def parse_detect(option: str) -> tuple[str, DetectSpec]:
    """`DIMENSION=LABEL,...`, optionally `:judge<=N` or `:judge>=N` for judges answering in
    numbers (`breakdown=X:judge<=2`)."""
    dimension, _, rest = option.partition("=")
    labels, _, threshold = rest.partition(":")
    positive = [label.strip() for label in labels.split(",") if label.strip()]
    bound = re.fullmatch(r"judge\s*(<=|>=)\s*(-?\d+(?:\.\d+)?)", threshold.strip())
    if not dimension or not positive or (threshold and bound is None):
        raise DialbenchError(
            f"--detect {option!r}: expected DIMENSION=LABEL[,LABEL...][:judge<=N|:judge>=N], "
            "e.g. breakdown=X:judge<=2"
        )
    if bound is None:
        return dimension, DetectSpec(positive=positive)
    side = "judge_at_most" if bound[1] == "<=" else "judge_at_least"
    return dimension, DetectSpec.model_validate({"positive": positive, side: float(bound[2])})


def infer_scale(values: pd.Series) -> ScaleSpec | None:
    """The scale the values suggest; None for free text, which no statistic here applies to."""
    present = values.dropna()
    if present.empty:
        return None
    if all(isinstance(v, float) for v in present):
        distinct = set(present)
        if distinct <= {0.0, 1.0}:
            return ScaleSpec(scale="binary")
        if all(v.is_integer() for v in distinct) and len(distinct) <= MAX_ORDINAL_POINTS:
            return ScaleSpec(scale="ordinal")
        return ScaleSpec(scale="interval")
    if present.astype(str).nunique() <= MAX_LABELS:
        return ScaleSpec(scale="nominal")
    return None


def encode(values: pd.Series, spec: ScaleSpec, dimension: str) -> tuple[pd.Series, list[str]]:
    """Values as numeric codes, and the label of each code (for nominal and ordered labels)."""
    if spec.order:
        unknown = sorted(set(values.dropna().astype(str)) - set(spec.order))
        if unknown:
            raise DialbenchError(
                f"{dimension}: values {unknown} are not in the order given by --scale"
            )
        position = {label: float(i) for i, label in enumerate(spec.order)}
        return values.map(lambda v: position.get(str(v))), list(spec.order)
    if spec.scale == "nominal":
        labels = sorted(set(values.dropna().astype(str)))
        position = {label: float(i) for i, label in enumerate(labels)}
        return values.map(lambda v: position.get(str(v))), labels
    numeric = pd.to_numeric(values, errors="coerce")
    if numeric.isna().sum() > values.isna().sum():
        raise DialbenchError(
            f"{dimension}: a {spec.scale} scale needs numbers; give labels an order with "
            f"--scale {dimension}=ordinal:LOW,...,HIGH"
        )
    return numeric.astype(float), []
