"""Calibration against a known truth: a judge whose answers are a monotone distortion of the
humans' quality plus noise comes out of calibration closer to the humans, out of fold; a judge
of pure noise gets no gain, because every item is scored by a map fitted without its dialogue."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from dialbench.calibrate.api import calibrate
from dialbench.calibrate.config import CalibrateConfig, CalibratedAgreementRow, IsotonicMap
from dialbench.calibrate.judgments import calibrated_configuration
from dialbench.ratings import JudgeNames
from dialbench.schema import JudgeConfiguration, Judgment, Target
from dialbench.store import RunStore
from tests.calibrate.synthetic import CONFIGURATION, JUDGE, synthetic_run


def _overall(run: Path) -> CalibratedAgreementRow:
    done = calibrate(CalibrateConfig(protocol="submetrics", bootstrap_resamples=300), run)
    [row] = [r for r in done.calibration.agreement if r.language == "en"]
    assert (row.figure, row.n_dialogues, row.n_items) == ("pearson", 40, 240)
    return row


def test_a_distorted_judge_comes_closer_to_the_humans_out_of_fold(tmp_path: Path) -> None:
    """The judge squeezes quality 1-5 into 1-2 but for the best turns (a cube) and adds noise:
    its raw answers are far from the humans' scale; the calibrated ones, near."""

    def distorted(rng: np.random.Generator, latent: float) -> float:
        return 1 + 4 * ((latent - 1) / 4) ** 3 + rng.normal(0, 0.15)

    row = _overall(synthetic_run(tmp_path / "run", distorted))
    assert row.raw_error is not None
    assert row.calibrated_error is not None
    assert row.calibrated_error < 0.6 * row.raw_error
    assert row.calibrated.value is not None
    assert row.raw.value is not None
    assert row.calibrated.value > row.raw.value
    assert row.gain.low is not None
    assert row.gain.low > 0


def test_a_judge_of_pure_noise_gets_no_gain(tmp_path: Path) -> None:
    """Fitted on the items it scores, an isotonic map of noise follows the noise and would
    correlate; out of fold it does not, and the gain's interval holds zero or less."""

    def noise(rng: np.random.Generator, _: float) -> float:
        return rng.uniform(1, 5)

    row = _overall(synthetic_run(tmp_path / "run", noise))
    assert row.calibrated.low is not None
    assert row.calibrated.low < 0
    assert row.gain.low is not None
    assert row.gain.low < 0
    assert row.calibrated.value is not None
    assert abs(row.calibrated.value) < 0.2


def test_the_final_map_fitted_on_every_item_is_what_a_new_item_gets(tmp_path: Path) -> None:
    def exact(_: np.random.Generator, latent: float) -> float:
        return latent

    done = calibrate(CalibrateConfig(protocol="submetrics", bootstrap_resamples=100),
                     synthetic_run(tmp_path / "run", exact))  # fmt: skip
    [fitted] = done.calibration.maps
    assert isinstance(fitted.map, IsotonicMap)
    assert (fitted.n_items, fitted.n_dialogues) == (240, 40)
    assert fitted.map.increasing


def test_a_language_with_too_few_dialogues_is_left_uncalibrated_and_says_so(
    tmp_path: Path,
) -> None:
    def exact(_: np.random.Generator, latent: float) -> float:
        return latent

    run = synthetic_run(tmp_path / "run", exact, dialogues=10)
    synthetic_run(run, exact, dialogues=1, language="ja", seed=1)
    done = calibrate(CalibrateConfig(protocol="submetrics", bootstrap_resamples=100), run)
    assert [m.cell.language for m in done.calibration.maps] == ["en"]
    [line] = done.calibration.not_calibrated
    assert line == (
        f"{JUDGE} [{CONFIGURATION.fingerprint}] quality -> quality ja: 1 labelled dialogue(s): "
        "cross-validation needs two: not calibrated"
    )
    assert line in done.notes
    assert "1 dialogue(s) in ja, a language the calibration has no map for" in " ".join(done.notes)
    with RunStore.open(run, create=False) as store:
        placements = store.dialogue_placements()
        calibrated = [
            j
            for j in store.records(Judgment)
            if j.configuration is not None and j.configuration.calibration
        ]
    assert len(calibrated) == 60
    assert {placements[j.target.dialogue_id][0] for j in calibrated} == {"en"}


def test_a_calibrated_configuration_is_a_new_identity_named_as_calibrated() -> None:
    """The judge's configuration with the calibration named: a fingerprint of its own (never
    the cached one of the configuration it was made from), and `(calibrated)` in figures."""
    _ = CONFIGURATION.fingerprint  # cached on the original
    configuration = calibrated_configuration(CONFIGURATION, "ab" * 32)
    assert configuration.calibration == "ab" * 32
    assert configuration.options == CONFIGURATION.options
    assert configuration.fingerprint != CONFIGURATION.fingerprint
    assert calibrated_configuration(None, "ab" * 32).model_dump() == {
        **JudgeConfiguration().model_dump(),
        "calibration": "ab" * 32,
    }
    target = Target(dialogue_id="d", turn_index=1)
    raw, mapped = (
        Judgment(protocol="submetrics", judge_model=JUDGE, target=target, configuration=c,
                 result={"quality": 3}, parse_status="ok")
        for c in (CONFIGURATION, configuration)
    )  # fmt: skip
    assert raw.id != mapped.id
    names = JudgeNames([raw, mapped])
    assert names(raw) == f"{JUDGE} [{CONFIGURATION.fingerprint}]"
    assert names(mapped) == f"{JUDGE} (calibrated) [{configuration.fingerprint}]"
