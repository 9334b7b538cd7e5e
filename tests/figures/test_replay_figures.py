"""The replay protocol's chatbot figures: one observation per judgment, whichever order the
candidate was shown in, on its recording's seed unit; and against a known truth, contexts in two
languages that a candidate truly wins with a known probability, the win rates' 95% intervals
hold it about as often as they say."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dialbench.figures.intervals import chatbot_intervals
from dialbench.figures.observations import contest_observations
from dialbench.schema import ALL_LANGUAGES, Dialogue, Participants, Turn

CANDIDATE = "local:candidate"
TRUTH = {"en": 0.6, "de": 0.3}  # P(the candidate's replies are the better ones), per language
TIE = 0.2  # P(a tie), in both languages
CONTEXTS = 40  # per language
REPETITIONS = 100


def contexts() -> list[tuple[str, Dialogue]]:
    """Per language, recorded dialogues and a candidate's replay of each (the recording's id
    stands for it: only the replays are contestants)."""
    made = []
    for language in TRUTH:
        for i in range(CONTEXTS):
            recorded = f"d-recorded-{language}-{i}"
            replay = Dialogue(
                id=f"d-replay-{language}-{i}",
                language=language,
                source="replay",
                participants=Participants(assistant=CANDIDATE),
                turns=[Turn(role="user", text=f"{i}"), Turn(role="assistant", text="ok")],
                metadata={"replay_of": recorded},
            )
            made.append((recorded, replay))
    return made


def judgments(made: list[tuple[str, Dialogue]], rng: np.random.Generator) -> pd.DataFrame:
    """The frame a judge leaves: per context one verdict (candidate, tie, recorded) drawn from
    the truth, given in both orders, as first / second / tie of the order shown."""
    rows = []
    for recorded, replay in made:
        p = TRUTH[replay.language]
        verdict = rng.choice(["candidate", "tie", "recorded"], p=[p, TIE, 1 - p - TIE])
        for first, second in ((replay.id, recorded), (recorded, replay.id)):
            candidate = "first" if first == replay.id else "second"
            other = "second" if candidate == "first" else "first"
            winner = {"candidate": candidate, "tie": "tie", "recorded": other}[str(verdict)]
            rows.append(
                {
                    "protocol": "replay",
                    "judge": "judge-x",
                    "status": "ok",
                    "item": f"{first}|{second}",
                    "winner": winner,
                }
            )
    rows.append({**rows[0], "status": "unscored", "winner": None})  # counts in no figure
    return pd.DataFrame(rows)


def test_every_judgment_is_one_observation_of_the_candidate_on_its_recordings_unit() -> None:
    made = contexts()
    replays = {replay.id: replay for _, replay in made}
    units = {replay.id: f"dialogue:{recorded}" for recorded, replay in made}
    found = contest_observations(
        judgments(made, np.random.default_rng(0)), "replay", replays, units
    )
    assert len(found) == 2 * 2 * len(made)  # 2 orders x 2 dimensions per context
    assert set(found["chatbot"]) == {CANDIDATE}
    assert found.groupby("unit").size().eq(4).all()  # both orders on the recording's unit
    wins = found[found["dimension"] == "win"].set_index("item")["value"]
    ties = found[found["dimension"] == "win_or_tie"].set_index("item")["value"] - wins
    assert ((wins + ties) <= 1).all()
    assert set(wins) <= {0.0, 1.0}


def test_the_win_rates_intervals_hold_the_truth_about_95_percent_of_the_time() -> None:
    made = contexts()
    replays = {replay.id: replay for _, replay in made}
    units = {replay.id: f"dialogue:{recorded}" for recorded, replay in made}
    truth = {
        ("win", "en"): TRUTH["en"],
        ("win", "de"): TRUTH["de"],
        ("win", ALL_LANGUAGES): float(np.mean(list(TRUTH.values()))),
        ("win_or_tie", "en"): TRUTH["en"] + TIE,
        ("win_or_tie", "de"): TRUTH["de"] + TIE,
        ("win_or_tie", ALL_LANGUAGES): float(np.mean(list(TRUTH.values()))) + TIE,
    }
    held = dict.fromkeys(truth, 0)
    rng = np.random.default_rng(7)
    for _ in range(REPETITIONS):
        observed = contest_observations(judgments(made, rng), "replay", replays, units)
        figures = chatbot_intervals(observed).set_index(["dimension", "language"])
        assert (figures["units"] == figures["items"] / 2).all()  # a context is one seed unit
        for key, value in truth.items():
            held[key] += bool(figures.loc[key, "low"] <= value <= figures.loc[key, "high"])
    coverage = {key: count / REPETITIONS for key, count in held.items()}
    assert all(rate >= 0.88 for rate in coverage.values()), coverage
    assert any(rate < 1.0 for rate in coverage.values()), coverage  # not vacuously wide
