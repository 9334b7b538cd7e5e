"""`dialbench run --dry-run`: the seeds of each simulation and self-chat stage per language,
and the smallest difference in an issue rate they detect, from a base rate or a pilot run."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
import yaml

from dialbench.errors import DialbenchError
from dialbench.figures.power import detectable_difference, rate_sd
from dialbench.pipeline.config import load_pipeline
from dialbench.pipeline.plan import PowerBasis, plan_pipeline
from dialbench.schema import Dialogue, Judgment, Participants, Target, Turn
from dialbench.store import RunStore
from tests.conftest import DIALBENCH
from tests.judge.scripted import ISSUE_KEYS

SIMULATE = {
    "stage": "simulate",
    "languages": ["en", "zh", "de"],
    "seeds": {"contexts": 30, "seed": 0},
    "user": {"models": ["local:gemma3-270m", "local:qwen2.5-0.5b"]},
    "chatbots": {"models": ["local:gemma3-270m", "local:qwen2.5-0.5b"]},
}


def plan_of(tmp_path: Path, basis: PowerBasis) -> list[tuple[list[str], int, float, float | None]]:
    path = tmp_path / "pipeline.yaml"
    path.write_text(yaml.safe_dump({"stages": [SIMULATE]}), encoding="utf-8")
    plan = plan_pipeline(load_pipeline(path), tmp_path / "run", basis)
    return [(p.languages, p.seeds, p.sd, p.difference) for p in plan.stages[0].power]


def test_the_plan_gives_each_languages_seeds_and_what_they_detect(tmp_path: Path) -> None:
    """30 contexts a language, two user models: two dialogues per seed and chatbot."""
    sd = rate_sd(0.1, items=2)
    assert plan_of(tmp_path, PowerBasis(base_rate=0.1)) == [
        (["en", "zh", "de"], 30, sd, detectable_difference(30, sd).difference),
        (["all"], 90, sd, detectable_difference(90, sd).difference),
    ]


def pilot(run_dir: Path, flags: dict[str, np.ndarray]) -> None:
    """`flags[language][chatbot, seed]`: whether the judge found the dialogue repetitive."""
    dialogues, judgments = [], []
    for language, (bot, seed), flagged in (
        (language, index, flagged)
        for language, table in flags.items()
        for index, flagged in np.ndenumerate(table)
    ):
        dialogue = Dialogue(
            language=language,
            participants=Participants(user="sim", assistant=f"bot{bot}"),
            turns=[Turn(role="user", text=f"seed {seed}"), Turn(role="assistant", text="hi")],
            metadata={"chatseed_dialogue": f"{language}{seed}"},
        )
        issues = {key: key == "repetitive" and bool(flagged) for key in ISSUE_KEYS}
        dialogues.append(dialogue)
        judgments.append(
            Judgment(
                protocol="issues",
                judge_model="judge",
                target=Target(dialogue_id=dialogue.id),
                parse_status="ok",
                result={"issues": issues, "comments": {}, "overall": 3},
                raw_output="{}",
            )
        )
    with RunStore.open(run_dir) as store, store.invocation("pilot") as run:
        store.add(dialogues, run)
        store.add(judgments, run)


def test_a_pilot_gives_the_spread_of_its_widest_issue(tmp_path: Path) -> None:
    """English and Chinese in the pilot; German, which it lacks, takes its languages together."""
    en = np.array([[1, 0, 1, 1, 0, 0], [0, 0, 1, 0, 0, 1]])
    zh = np.array([[1, 1, 1, 1, 0, 1], [0, 0, 1, 0, 0, 1]])
    pilot(tmp_path / "pilot", {"en": en, "zh": zh})
    sd = {
        "en": np.std(en[0] - en[1], ddof=1),
        "zh": np.std(zh[0] - zh[1], ddof=1),
        "all": np.std(np.concatenate([en[0] - en[1], zh[0] - zh[1]]), ddof=1),
    }
    found = plan_of(tmp_path, PowerBasis(pilot=tmp_path / "pilot"))
    assert [(languages, seeds, spread) for languages, seeds, spread, _ in found] == [
        (["en"], 30, pytest.approx(sd["en"])),
        (["zh"], 30, pytest.approx(sd["zh"])),
        (["de"], 30, pytest.approx(sd["all"])),
        (["all"], 90, pytest.approx(sd["all"])),
    ]
    assert found[0][3] == pytest.approx(detectable_difference(30, sd["en"]).difference)


def test_a_pilot_without_paired_issue_rates_is_an_error(tmp_path: Path) -> None:
    pilot(tmp_path / "pilot", {"en": np.array([[1, 0, 1, 1, 0, 0]])})  # one chatbot: no pairs
    with pytest.raises(DialbenchError, match="no issue rates of two chatbots"):
        plan_of(tmp_path, PowerBasis(pilot=tmp_path / "pilot"))


def run_command(tmp_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """`dialbench run` of the simulation alone, in `tmp_path`."""
    path = tmp_path / "pipeline.yaml"
    path.write_text(yaml.safe_dump({"run": "run", "stages": [SIMULATE]}), encoding="utf-8")
    return subprocess.run(
        [str(DIALBENCH), "run", str(path), *options],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "200"},
        cwd=tmp_path,
    )


def test_the_dry_run_prints_the_seeds_and_what_they_detect(tmp_path: Path) -> None:
    done = run_command(tmp_path, "--dry-run", "--base-rate", "0.1")
    assert done.returncode == 0, done.stderr
    difference = detectable_difference(30, rate_sd(0.1, items=2)).difference or 0
    row = next(line for line in done.stdout.splitlines() if "en, zh, de" in line)
    assert row.split()[-6:] == ["de", "30", "2", "0.30", f"{100 * difference:.1f}", "points"]
    assert "base rate 10%" in done.stdout


def test_planning_options_without_a_dry_run_are_a_mistake(tmp_path: Path) -> None:
    done = run_command(tmp_path, "--base-rate", "0.1")
    assert done.returncode == 1
    assert "plan the seeds of a --dry-run" in done.stderr
    assert not (tmp_path / "run").exists()
