"""The replay section of a run's report: the candidate's win rates per judge and language with
their intervals over seed units, the replayed contexts side by side (texts escaped and cut, at
most SHOWN_CONTEXTS of them, the rest counted) with the verdicts of both orders, and the replays
that ended in an error, listed."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from dialbench.judge.api import judge
from dialbench.judge.config import JudgeConfig
from dialbench.llm.base import Request
from dialbench.replay_records import RECORDED_SIDE as RECORDED
from dialbench.report.config import ReportConfig
from dialbench.report.protocols import replay as replay_section
from dialbench.report.writer import ReportResult, report
from dialbench.schema import Dialogue, Participants, Turn
from tests.replays import (
    CANDIDATE,
    EVERY,
    FAILED,
    LAST,
    RECORDED_MODEL,
    RECORDINGS,
    REPLAYS,
    replay_run,
)
from tests.scripted_models import ScriptedModel

HOSTILE = "<script>alert(1)</script> | pipe"
FORMULA = '=HYPERLINK("http://example.com")'
LONG_REPLY = "Sure. " + "word " * 200


def hostile_pair() -> tuple[Dialogue, Dialogue]:
    recorded = Dialogue(
        language="fr",
        source="production",
        participants=Participants(assistant=RECORDED_MODEL),
        turns=[Turn(role="user", text=HOSTILE), Turn(role="assistant", text=FORMULA)],
        end_reason="natural_end",
    )
    replay = Dialogue(
        language="fr",
        source="replay",
        participants=Participants(assistant=CANDIDATE),
        turns=[recorded.turns[0], Turn(role="assistant", text=LONG_REPLY, model=CANDIDATE)],
        end_reason="natural_end",
        metadata={
            "replay_of": recorded.id,
            "replay_mode": "last",
            "replayed_turns": [1],
            "recorded_turns": [1],
            "tool_calls_not_recorded": 0,
        },
    )
    return recorded, replay


def candidate_first(request: Request) -> str:
    """Prefers the candidate's version wherever it is shown (its marked reply is the one
    written by the candidate: '21 °C', 'Was kann ich', 'Sure.')."""
    first = request.messages[-1].content.split("\n\nConversation 2:\n")[0]
    better = any(mark in first for mark in ("21 °C and sunny", "Was kann ich", "Sure."))
    return json.dumps(
        {"choice": "Conversation 1" if better else "Conversation 2", "reason": "closer"}
    )


def judged_report(tmp_path: Path) -> ReportResult:
    run = replay_run(tmp_path / "run", (*RECORDINGS, *REPLAYS, *hostile_pair()))
    model = ScriptedModel("replay-report", candidate_first)
    judge(JudgeConfig(protocol="replay", judges=[model.config()]), run, quiet=True)
    return report(ReportConfig(), run)


def table(written: ReportResult, name: str) -> pd.DataFrame:
    return pd.read_csv(written.folder / "tables" / f"{name}.csv", keep_default_na=False)


def test_the_section_shows_win_rates_contexts_side_by_side_and_failed_replays(
    tmp_path: Path,
) -> None:
    written = judged_report(tmp_path)
    assert "replay" in [section.key for section in written.sections]
    both = pd.read_csv(written.folder / "tables" / "replay.csv")
    recorded = both[both["chatbot"] == RECORDED].set_index("language")
    assert recorded.loc["all", "win_rate"] == 0.0  # the same judgments, from the other side
    rates = both[both["chatbot"] == CANDIDATE].set_index("language")
    assert list(rates.index) == ["de", "en", "fr", "all"]
    assert rates.loc["all", "win_rate"] == 1.0
    assert rates.loc["all", "judgments"] == 6
    assert rates.loc["all", "seeds"] == 3  # one seed unit per recording, both orders in it
    assert rates.loc["all", "win_rate_high"] == 1.0  # won on every seed: the point
    assert rates.loc["de", "note"] == "1 seed: no interval"

    contexts = table(written, "replay_contexts")
    assert contexts["replay"].tolist() == [LAST.id, EVERY.id, EVERY.id, contexts["replay"][3]]
    last = contexts.iloc[0]
    assert last["user_turn"] == "What is the weather in Lisbon?"
    assert last["recorded_reply"] == "It is 12 °C and raining in Lisbon."
    assert last["candidate_reply"] == "It is 21 °C and sunny in Lisbon."
    assert last["recorded_tools"] == 'weather({"city": "Lisbon"}) → 21 °C, sunny'
    assert last["candidate_shown_first"] == "scripted:replay-report: candidate"
    assert last["candidate_shown_second"] == "scripted:replay-report: candidate"
    every = contexts.iloc[2]
    assert (every["context"], every["recorded_turn"]) == ("2 of 2", 4)
    assert every["candidate_tools"].startswith("search(wetter) → Lissabon: 21 °C | weather(")
    hostile = contexts.iloc[3]
    assert hostile["candidate_reply"].endswith(f"… [{len(LONG_REPLY.strip()):,} characters]")
    assert len(hostile["candidate_reply"]) < 340

    failed = table(written, "replay_errors")
    assert failed["replay"].tolist() == [FAILED.id]
    assert failed.loc[0, "replies_before_the_error"] == 1
    assert "HTTP 500" in failed.loc[0, "error"]

    markdown = written.markdown.read_text(encoding="utf-8")
    assert "1 of 4 replays ended in an error" in markdown
    assert "All 4 replayed contexts judged are shown." in markdown
    assert "<script>" not in markdown
    assert "&lt;script&gt;alert(1)&lt;/script&gt; \\|" in markdown
    html = written.html.read_text(encoding="utf-8")
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(1)" in html
    assert hostile["user_turn"] == HOSTILE  # the CSV holds the text as it was
    assert hostile["recorded_reply"] == f"'{FORMULA}"  # a spreadsheet's formula, as text


def test_contexts_past_the_limit_are_counted_not_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replay_section, "SHOWN_CONTEXTS", 2)
    written = judged_report(tmp_path)
    assert len(table(written, "replay_contexts")) == 2
    markdown = written.markdown.read_text(encoding="utf-8")
    assert "The first 2 of 4 replayed contexts judged are shown (2 left out)." in markdown
