"""The panel's judgments: one per item its members judged, in the members' protocol, by the
judge `panel:NAME`, under a configuration naming the members, the method and the weights. An
item that fewer than half the members answered (`ok`) gets an unscored judgment saying so,
never a label the rest made alone."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from pydantic import JsonValue

from dialbench.metaeval.rating_matrix import RatingMatrix
from dialbench.panel.aggregation import combine
from dialbench.panel.members import Members, ValueKind
from dialbench.schema import JudgeConfiguration, Judgment, PanelSettings, Provenance


def _value(code: float, matrix: RatingMatrix, kind: ValueKind) -> JsonValue:
    """A code as the members wrote it: a label, a boolean, an integer score or a number."""
    if matrix.labels:
        return matrix.labels[int(code)]
    if kind == "bool":
        return bool(code)
    if kind == "int" and float(code).is_integer():
        return int(code)
    return float(code)


def _put(result: dict[str, JsonValue], dimension: str, value: JsonValue) -> None:
    """A dotted dimension back in its nested place (`issues.unsafe`)."""
    *path, last = dimension.split(".")
    here = result
    for key in path:
        nested = here.setdefault(key, {})
        assert isinstance(nested, dict)
        here = nested
    here[last] = value


def _judgment(base: dict[str, object], **outcome: object) -> Judgment:
    return Judgment.model_validate({**base, **outcome})


def panel_judgments(
    members: Members,
    matrices: Mapping[tuple[str, str], RatingMatrix],
    settings: PanelSettings,
    judge_model: str,
    run_id: str,
) -> list[Judgment]:
    """`matrices`: (language, dimension) -> the members' values (items x members, a member's
    samples already one value on the dimension's scale)."""
    configuration = JudgeConfiguration(panel=settings)
    provenance = Provenance(run_id=run_id, config_hash=configuration.fingerprint)
    by_language: dict[str, list[RatingMatrix]] = {}
    for (language, _), matrix in sorted(matrices.items()):
        by_language.setdefault(language, []).append(matrix)
    made = []
    for item, target in sorted(members.targets.items()):
        answered = members.answered.get(item, set())
        base = {
            "protocol": members.protocol,
            "judge_model": judge_model,
            "target": target,
            "configuration": configuration,
            "provenance": provenance,
        }
        if 2 * len(answered) < len(settings.members):
            failed = sorted(set(settings.members) - answered)
            made.append(
                _judgment(
                    base,
                    parse_status="unscored",
                    error=f"{len(answered)} of {len(settings.members)} members answered, fewer "
                    f"than half: no panel verdict (failed: {', '.join(failed)})",
                )
            )
            continue
        language = members.languages[item]
        result: dict[str, JsonValue] = {}
        lines = []
        for matrix in by_language.get(language, []):
            if item not in matrix.humans.index:
                continue
            row = matrix.humans.loc[item].dropna()
            row = row[[m for m in row.index if m in answered]]
            if row.empty:
                continue
            weights = settings.weights.get(language, {}).get(matrix.dimension, {})
            codes = row.to_numpy(dtype=float)
            voted = np.array([weights.get(str(m), 1.0) for m in row.index])
            code = combine(codes, voted, matrix.spec.scale, settings.method)
            value = _value(code, matrix, members.kinds.get(matrix.dimension, "other"))
            _put(result, matrix.dimension, value)
            votes = ", ".join(
                f"{m} {matrix.label_of(c)}" for m, c in zip(row.index, codes, strict=True)
            )
            lines.append(f"{matrix.dimension}: {value} ({settings.method} of {votes})")
        if not result:
            made.append(
                _judgment(
                    base,
                    parse_status="unscored",
                    error="the members who answered gave no value on any dimension",
                )
            )
            continue
        made.append(_judgment(base, parse_status="ok", result=result, raw_output="\n".join(lines)))
    return made
