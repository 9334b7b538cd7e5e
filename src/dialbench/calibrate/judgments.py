"""Calibrated judgments: the judge's answers mapped onto the humans' scale, stored beside its
own as a configuration of their own (the original one with `calibration` set to the
calibration's sha256), so their ids differ and metaeval sets the two side by side.

A calibrated judgment answers the human dimensions its maps lead to (`breakdown`, a number on
its scale; `breakdown=X`, a decision), so metaeval compares it without `--pair`. A labelled
item of the run a calibration was fitted on keeps its out-of-fold value, never one fitted on
it; every other item gets the final map's."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

import numpy as np
import pandas as pd
from pydantic import JsonValue

from dialbench.calibrate.answers import JudgeAnswers
from dialbench.calibrate.config import CellKey, FittedMap, IsotonicMap
from dialbench.calibrate.fitting import apply_map
from dialbench.ratings import item_target
from dialbench.schema import JudgeConfiguration, Judgment, Provenance


def calibrated_configuration(
    configuration: JudgeConfiguration | None, digest: str
) -> JudgeConfiguration:
    """The judge's configuration with the calibration named: made anew, not copied, so its
    fingerprint is computed for what it now holds."""
    own = configuration.model_dump(mode="json") if configuration else {}
    return JudgeConfiguration.model_validate({**own, "calibration": digest})


def _value(fitted: FittedMap, mapped: float) -> JsonValue:
    return mapped if isinstance(fitted.map, IsotonicMap) else bool(mapped)


def _explained(fitted: FittedMap, judge_value: float, mapped: JsonValue, out_of_fold: bool) -> str:
    how = "out of fold" if out_of_fold else "final map"
    return (
        f"{fitted.cell.judge_dimension} {judge_value:g} -> {fitted.cell.dimension} {mapped} "
        f"({fitted.map.kind}, {fitted.cell.language}, {how})"
    )


def calibrated_judgments(
    answers: list[JudgeAnswers],
    maps: list[FittedMap],
    out_of_fold: Mapping[CellKey, pd.Series],
    digest: str,
    run_id: str,
) -> tuple[list[Judgment], list[str]]:
    """One calibrated judgment per item a map reaches, and a note per judge and language that
    none does."""
    judgments, notes = [], []
    for judge in answers:
        own = [m for m in maps if (m.cell.judge_model, m.cell.configuration, m.cell.protocol)
               == judge.key]  # fmt: skip
        if not own:
            continue
        configuration = calibrated_configuration(judge.settings, digest)
        unmapped: dict[str, set[str]] = defaultdict(set)
        for item, target in sorted(judge.targets.items()):
            language = judge.languages[item]
            result: dict[str, JsonValue] = {}
            lines = []
            for fitted in (m for m in own if m.cell.language == language):
                values = judge.values.get(fitted.cell.judge_dimension, pd.Series(dtype=float))
                if item not in values.index or np.isnan(values[item]):
                    continue
                held_out = out_of_fold.get(fitted.cell, pd.Series(dtype=float))
                mapped = (
                    float(held_out[item])
                    if item in held_out.index
                    else float(apply_map(fitted.map, np.array([values[item]]))[0])
                )
                result[fitted.cell.dimension] = _value(fitted, mapped)
                lines.append(
                    _explained(fitted, float(values[item]), result[fitted.cell.dimension],
                               item in held_out.index)
                )  # fmt: skip
            if not result:
                if not any(m.cell.language == language for m in own):
                    unmapped[language].add(item_target(item).dialogue_id)
                continue
            judgments.append(
                Judgment(
                    protocol=judge.protocol,
                    judge_model=judge.judge_model,
                    target=target,
                    configuration=configuration,
                    result=result,
                    raw_output=f"calibration {digest[:12]}:\n" + "\n".join(lines),
                    parse_status="ok",
                    provenance=Provenance(run_id=run_id, config_hash=digest),
                )
            )
        notes += [
            f"{judge.judge_model} [{judge.configuration}]: {len(dialogues)} dialogue(s) in "
            f"{language}, a language the calibration has no map for: left uncalibrated"
            for language, dialogues in sorted(unmapped.items())
        ]
    return judgments, notes
